// Reading a file line by line in bounded memory lives in @chi/run (the attempt-chain check of a
// resume streams the log with it too); re-exported for the report's readers.
export { type FileLine, fileLines } from '@chi/run';
