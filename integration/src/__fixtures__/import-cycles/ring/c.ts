export type { A as C } from './a';
