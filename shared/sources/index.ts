export { parseComposeFile, sourceFileKind } from './compose-references';
export { parseDockerfile } from './dockerfile-references';
export { parseImageList } from './image-list';
export type { ParsedSourceFile, SourceEntry, SourceProblem } from './source-entry';
