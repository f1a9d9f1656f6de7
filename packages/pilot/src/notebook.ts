// The notebook rule is pure and the divergence scorer applies it too, so it lives in
// @chi/experiments (src/notebook.ts); the runner's modules import it from here.
export {
  applyNotebookCap,
  corruptedNotebook,
  emptyNotebook,
  NOTEBOOK_CAP_BYTES,
  type NotebookContent,
  utf8ByteLength,
} from '@chi/experiments/internal';
