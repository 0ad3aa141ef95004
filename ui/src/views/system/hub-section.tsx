import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../../../../shared/error-message';
import { ErrorText } from '../../components/error-text';
import { ageWords, when } from '../../format-time';
import { selfUpdate } from '../../self-update';
import { type ServerView, systemApi } from './system-api';

/** Since when, derived from the start time as the rest of the UI says an age ("for 3 days"). */
function runningFor(startedAt: string): string {
  const age = ageWords(startedAt);
  return age === 'just now' ? 'started just now' : `for ${age}`;
}

/** Its own update: where it runs, what it would move to, the one action (on the container's page, which previews it). */
function SelfContainer({ self }: { self: ServerView['selfContainer'] }) {
  const following = selfUpdate.value;
  if (following)
    return (
      <p role="status" data-field="self-update">
        {following.stage === 'restarting'
          ? `The hub is updating itself${following.phase ? ` (${following.phase})` : ''}…`
          : `The hub's self-update ${following.status}${following.version ? `: it runs ${following.version}` : ''}.`}
      </p>
    );
  if (!self)
    return (
      <p data-field="self-update">
        The hub does not run in a container a watcher sees, so it cannot update itself: update it the way it was
        installed.
      </p>
    );
  const page = `/containers/${encodeURIComponent(self.id)}`;
  return (
    <p data-field="self-update">
      Runs in the container <a href={page}>{self.name}</a> ({self.tag || 'no tag'}).{' '}
      {self.updateAvailable ? (
        <>
          {self.candidate ? `${self.candidate} is available.` : 'A newer image is available.'}{' '}
          <a class="button" href={page}>
            Update the hub…
          </a>
        </>
      ) : (
        'It runs the newest version its watcher knows.'
      )}
    </p>
  );
}

/** The hub itself: version, runtime, storage, since when, variables the runtime refused, its own update. */
export function HubSection() {
  const [server, setServer] = useState<ServerView | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    systemApi.server().then(setServer, (failure: unknown) => setError(errorMessage(failure)));
  }, [selfUpdate.value?.stage]);
  return (
    <section class="card" aria-labelledby="this-hub">
      <h2 id="this-hub">This hub</h2>
      {server && (
        <>
          <dl class="grid" data-field="hub">
            <dt>Version</dt>
            <dd data-field="version">
              {server.name} {server.version}
            </dd>
            <dt>Runtime</dt>
            <dd>
              {server.runtime}, {server.storage.driver} storage
            </dd>
            <dt>Running</dt>
            <dd>
              <span title={when(server.startedAt)}>{runningFor(server.startedAt)}</span>
              {server.ready ? '' : ', still starting'}
            </dd>
          </dl>
          <SelfContainer self={server.selfContainer} />
          {server.refusedVariables.length > 0 && (
            <div role="alert" data-field="refused">
              <p>This runtime cannot honour these variables; the hub runs without them:</p>
              <ul>
                {server.refusedVariables.map((refusal) => (
                  <li key={refusal.variable}>
                    <code>{refusal.variable}</code>: {refusal.reason}
                  </li>
                ))}
              </ul>
            </div>
          )}
        </>
      )}
      <ErrorText message={error} />
    </section>
  );
}
