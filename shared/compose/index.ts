export type { ComposeFileEditor, ComposeImageChange, ComposeRewriteOutcome } from './compose-editor';
export { type ProjectRewrite, rewriteProject } from './compose-project';
export { type ComposeTextRewrite, rewriteServiceImage, type ServiceImageChange } from './compose-rewrite';
export { COMPOSE_LABELS, type ComposeTarget, composeTargetOf, updateComposeFile } from './compose-target';
export { sameImage } from './image-match';
export { composeEditorForWatcher } from './watcher-compose';
