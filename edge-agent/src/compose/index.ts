export { type ComposeFileEditorOptions, createComposeFileEditor } from './compose-file';
