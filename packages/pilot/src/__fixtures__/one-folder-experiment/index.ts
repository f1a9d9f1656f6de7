/** An experiment added in one folder: module, scorer and a model that answers it. */
export { ONE_FOLDER_ID, oneFolderExperiment } from './experiment';
export { okModel } from './model';
export { oneFolderScorer } from './scorer';
