import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../../../shared/error-message';
import { ConfirmDialog } from '../components/confirm-dialog';
import { ErrorText } from '../components/error-text';
import { shortDigest } from '../format';
import { bytes } from '../format-bytes';
import { when } from '../format-time';
import { type ImageList, type ImageView, imagesApi, type PrunePreview, type PruneResult } from '../images-api';
import { useAction } from '../use-action';

/** Where an image lives: a watcher of the hub's own, or of an edge agent (valibot's optional admits undefined). */
type OnHost = { watcher: string; agent?: string | undefined };

/** An image id is a content address, the same on every host: the host makes a row unique. */
const rowKey = (image: OnHost & { id: string }) => `${image.agent ?? ''}/${image.watcher}/${image.id}`;
const hostOf = (image: OnHost) => (image.agent ? `${image.agent} (${image.watcher})` : `this hub (${image.watcher})`);
/** A dangling image has no tag left: it is named by its id. */
const nameOf = (image: ImageView) =>
  image.repoTags.length ? image.repoTags.join(', ') : `<none> ${shortDigest(image.id)}`;

const KEPT_BY: Record<ImageView['keptBy'][number], string> = {
  container: 'a container uses it',
  backup: 'a kept backup',
  'update-operation': 'an unsettled update',
};

/**
 * The images of every Docker host the hub watches, the edge agents' included (http-interface §4.14,
 * admin), with what keeps each one; the prune preview names what a prune would remove, and the
 * prune asks first and sends the §4.1 token.
 */
export function Images() {
  const [list, setList] = useState<ImageList | undefined>();
  const [preview, setPreview] = useState<PrunePreview | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [confirming, setConfirming] = useState(false);
  const { busy, error: pruneError, run } = useAction();
  const [result, setResult] = useState<PruneResult | undefined>();

  async function load() {
    try {
      const [images, prunable] = await Promise.all([imagesApi.list(), imagesApi.prunePreview()]);
      setList(images);
      setPreview(prunable);
      setError(undefined);
    } catch (failure) {
      setError(errorMessage(failure));
    }
  }
  useEffect(() => void load(), []);

  async function prune(ids: string[]) {
    await run(async () => setResult(await imagesApi.prune(ids)));
    setConfirming(false);
    await load();
  }

  const candidates = preview?.data ?? [];
  return (
    <main id="main" tabIndex={-1}>
      <h1>Images</h1>
      <ErrorText message={pruneError ?? error} />
      <section class="card" aria-labelledby="prune-preview">
        <h2 id="prune-preview">Prune preview</h2>
        <p class="hint">
          A prune removes only the images no container (running or not) uses, no kept backup needs and no unsettled
          update works with. Nothing is forced.
        </p>
        {result && <PruneSummary result={result} />}
        {preview && candidates.length === 0 && <p role="status">Nothing to prune: every image is in use or kept.</p>}
        {candidates.length > 0 && (
          <>
            <p role="status">
              {candidates.length === 1 ? '1 image' : `${candidates.length} images`} would be removed, reclaiming{' '}
              {bytes(preview?.reclaimableBytes ?? 0)}:
            </p>
            <ul class="prune-candidates">
              {candidates.map((image) => (
                <li key={rowKey(image)} data-image={image.id}>
                  <span class="break">{nameOf(image)}</span>{' '}
                  <span class="hint">
                    on {hostOf(image)}, {bytes(image.sizeBytes)}
                  </span>
                </li>
              ))}
            </ul>
            <button type="button" class="danger" onClick={() => setConfirming(true)}>
              Prune {candidates.length === 1 ? '1 image' : `${candidates.length} images`}
            </button>
          </>
        )}
        <HostErrors errors={preview?.errors ?? []} />
      </section>
      <ImageTable list={list} />
      {confirming && (
        <ConfirmDialog
          title="Remove these images?"
          action="Prune the images"
          busy={busy}
          onConfirm={() => prune([...new Set(candidates.map((image) => image.id))])}
          onCancel={() => setConfirming(false)}
        >
          <p>
            {candidates.length === 1 ? 'One image' : `${candidates.length} images`} (
            {bytes(preview?.reclaimableBytes ?? 0)}) will be deleted from their hosts. Pulling them again needs their
            registry.
          </p>
        </ConfirmDialog>
      )}
    </main>
  );
}

function PruneSummary({ result }: { result: PruneResult }) {
  return (
    <div role="status" class="prune-result">
      <p>
        Removed {result.removed.length === 1 ? '1 image' : `${result.removed.length} images`}, reclaiming{' '}
        {bytes(result.reclaimedBytes)}.
      </p>
      {result.skipped.length > 0 && (
        <ul>
          {result.skipped.map((skipped) => (
            <li key={rowKey(skipped)} class="break">
              Kept {shortDigest(skipped.id)} on {hostOf(skipped)}: {skipped.error}
            </li>
          ))}
        </ul>
      )}
      <HostErrors errors={result.errors} />
    </div>
  );
}

/** A host that could not list its images: none of its images is shown, so none of them is pruned. */
function HostErrors({ errors }: { errors: ImageList['errors'] }) {
  if (errors.length === 0) return null;
  return (
    <ul class="error" role="alert">
      {errors.map((failure) => (
        <li key={`${failure.agent ?? ''}/${failure.watcher}`} class="break">
          {hostOf(failure)} could not be read: {failure.error}
        </li>
      ))}
    </ul>
  );
}

function ImageTable({ list }: { list: ImageList | undefined }) {
  return (
    <section class="card" aria-labelledby="image-list">
      <h2 id="image-list">Images{list ? ` (${list.total})` : ''}</h2>
      {!list && <p>Loading…</p>}
      {list && list.total === 0 && <p>No image on any host.</p>}
      {list && list.total > 0 && (
        <table class="list images">
          <thead>
            <tr>
              <th scope="col">Image</th>
              <th scope="col">Id</th>
              <th scope="col">Host</th>
              <th scope="col">Size</th>
              <th scope="col">Created</th>
              <th scope="col">Used by</th>
              <th scope="col">Prune</th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((image) => (
              <tr key={rowKey(image)} data-image={image.id}>
                <td data-label="Image" class="break">
                  {image.repoTags.length ? (
                    image.repoTags.join(', ')
                  ) : (
                    <span class="hint">&lt;none&gt; (dangling)</span>
                  )}
                </td>
                <td data-label="Id" class="mono" title={image.id}>
                  {shortDigest(image.id)}
                </td>
                <td data-label="Host" class="break">
                  {hostOf(image)}
                </td>
                <td data-label="Size">{bytes(image.sizeBytes)}</td>
                <td data-label="Created">
                  <time dateTime={image.createdAt}>{when(image.createdAt)}</time>
                </td>
                <td data-label="Used by" class="break">
                  {image.containers.length ? image.containers.join(', ') : '—'}
                </td>
                <td data-label="Prune">
                  {image.prunable ? 'would be removed' : `kept: ${image.keptBy.map((why) => KEPT_BY[why]).join(', ')}`}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {list && <HostErrors errors={list.errors} />}
    </section>
  );
}
