export type { ComposeFileEditor, ComposeImageChange, ComposeRewriteOutcome } from './compose-editor';
export { type ProjectRewrite, rewriteProject } from './compose-project';
// rewriteServiceImage (and yaml with it) is imported by compose-project.ts when it is first needed.
export type { ComposeTextRewrite, ServiceImageChange } from './compose-rewrite';
export { COMPOSE_LABELS, type ComposeTarget, composeTargetOf, updateComposeFile } from './compose-target';
export { sameImage } from './image-match';
export { composeEditorForWatcher } from './watcher-compose';
