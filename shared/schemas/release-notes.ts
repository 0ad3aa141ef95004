import * as v from 'valibot';

// What the release notes routes answer (http-interface §4.8, docs/release-notes.md), for the hub's
// routes and the web UI's types.

/** One release as the forge published it; `body` is its Markdown, to render through a sanitising renderer. */
export const ReleaseSchema = v.object({
  tag: v.string(),
  version: v.nullable(v.string()),
  title: v.string(),
  date: v.nullable(v.string()),
  body: v.string(),
  url: v.nullable(v.string()),
  prerelease: v.boolean(),
});
export type Release = v.InferOutput<typeof ReleaseSchema>;

export const RELEASE_NOTES_STATUSES = [
  'ok',
  'no-update',
  'no-source',
  'unsupported-source',
  'no-releases',
  'release-not-found',
  'internetless',
  'rate-limited',
  'upstream-error',
] as const;

export const ReleaseNotesAnswerFields = {
  containerId: v.string(),
  status: v.picklist(RELEASE_NOTES_STATUSES),
  message: v.string(),
  source: v.nullable(
    v.object({
      forge: v.picklist(['github', 'gitlab']),
      host: v.string(),
      repository: v.string(),
      url: v.string(),
      label: v.string(),
    }),
  ),
  retryAt: v.optional(v.string()),
};

/** GET /containers/{id}/intermediate-release-notes: every release after `from` up to `to`, oldest first. */
export const IntermediateReleaseNotesSchema = v.object({
  ...ReleaseNotesAnswerFields,
  from: v.string(),
  to: v.nullable(v.string()),
  releases: v.array(ReleaseSchema),
});
export type IntermediateReleaseNotes = v.InferOutput<typeof IntermediateReleaseNotesSchema>;
