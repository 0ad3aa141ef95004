import type { JSX } from 'preact';
import { useMemo, useState } from 'preact/hooks';
import {
  groupByTag,
  type ListedOperation,
  matchesFilter,
  type OpenApiDocument,
  type Operation,
  schemaText,
} from './openapi-model';

const tagAnchor = (tag: string) => `tag-${tag.replace(/[^A-Za-z0-9_-]/g, '-')}`;

function securityText(operation: Operation): string {
  const requirements = operation.security ?? [];
  if (requirements.length === 0) return 'none (public)';
  return requirements
    .map((requirement) =>
      Object.entries(requirement)
        .map(([scheme, scopes]) => (scopes.length > 0 ? `${scheme} (${scopes.join(', ')})` : scheme))
        .join(' and '),
    )
    .join(' or ');
}

function Parameters({ operation }: { operation: Operation }): JSX.Element | null {
  const parameters = operation.parameters ?? [];
  if (parameters.length === 0) return null;
  return (
    <>
      <h3>Parameters</h3>
      <table class="params">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">In</th>
            <th scope="col">Type</th>
            <th scope="col">Description</th>
          </tr>
        </thead>
        <tbody>
          {parameters.map((parameter) => (
            <tr key={`${parameter.in}:${parameter.name}`}>
              <td>
                <code>{parameter.name}</code>
                {parameter.required ? ' (required)' : ''}
              </td>
              <td>{parameter.in}</td>
              <td>
                <code>{schemaText(parameter.schema)}</code>
              </td>
              <td>{parameter.description ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

function Body({ operation }: { operation: Operation }): JSX.Element | null {
  const content = operation.requestBody?.content;
  if (!content) return null;
  return (
    <>
      <h3>Request body</h3>
      {Object.entries(content).map(([type, media]) => (
        <div key={type}>
          <p class="media">{type}</p>
          <pre>{schemaText(media.schema)}</pre>
        </div>
      ))}
    </>
  );
}

function Responses({ operation }: { operation: Operation }): JSX.Element {
  return (
    <>
      <h3>Responses</h3>
      <dl class="responses">
        {Object.entries(operation.responses ?? {}).map(([status, response]) => {
          const media = Object.entries(response.content ?? {})[0];
          return (
            <div key={status} class="response">
              <dt>
                <span class={`status s${status[0]}`}>{status}</span> {response.description ?? ''}
              </dt>
              {media && (
                <dd>
                  <span class="media">{media[0]}</span>
                  <pre>{schemaText(media[1].schema)}</pre>
                </dd>
              )}
            </div>
          );
        })}
      </dl>
    </>
  );
}

function OperationView({ entry }: { entry: ListedOperation }): JSX.Element {
  const { operation } = entry;
  return (
    <details class="operation" id={entry.id}>
      <summary>
        <span class={`method m-${entry.method}`}>{entry.method.toUpperCase()}</span>
        <code class="path">{entry.path}</code>
        <span class="summary">{operation.summary ?? ''}</span>
        {operation.deprecated && <span class="deprecated">deprecated</span>}
      </summary>
      <div class="operation-body">
        <dl class="facts">
          <dt>Scope</dt>
          <dd>
            <code>{operation['x-required-scope'] ?? 'unknown'}</code>
          </dd>
          <dt>Credentials</dt>
          <dd>{securityText(operation)}</dd>
          <dt>Operation id</dt>
          <dd>
            <code>{entry.id}</code>
          </dd>
        </dl>
        <Parameters operation={operation} />
        <Body operation={operation} />
        <Responses operation={operation} />
      </div>
    </details>
  );
}

/** The whole reference: title, filter, the tag index, and every operation under its tag. */
export function Reference({ document }: { document: OpenApiDocument }): JSX.Element {
  const [filter, setFilter] = useState('');
  const groups = useMemo(() => groupByTag(document), [document]);
  const shown = [...groups]
    .map(([tag, entries]) => [tag, entries.filter((entry) => matchesFilter(entry, filter))] as const)
    .filter(([, entries]) => entries.length > 0);
  const count = shown.reduce((sum, [, entries]) => sum + entries.length, 0);
  return (
    <>
      <header class="top">
        <h1>
          {document.info.title} <span class="version">{document.info.version}</span>
        </h1>
        <a href="/api/v1/openapi.json">OpenAPI {document.openapi} document</a>
        <a href="/">Web UI</a>
      </header>
      <main id="main">
        {document.info.description && <p class="hint">{document.info.description}</p>}
        <div class="filter">
          <label>
            Filter operations
            <input
              type="search"
              value={filter}
              onInput={(event) => setFilter((event.currentTarget as HTMLInputElement).value)}
              placeholder="path, method, summary or scope"
            />
          </label>
          <p aria-live="polite" class="hint" data-testid="operation-count">
            {count} operations
          </p>
        </div>
        <nav aria-label="Tags" class="tags">
          <ul>
            {shown.map(([tag, entries]) => (
              <li key={tag}>
                <a href={`#${tagAnchor(tag)}`}>
                  {tag} ({entries.length})
                </a>
              </li>
            ))}
          </ul>
        </nav>
        {shown.map(([tag, entries]) => (
          <section key={tag} aria-labelledby={tagAnchor(tag)}>
            <h2 id={tagAnchor(tag)}>{tag}</h2>
            {entries.map((entry) => (
              <OperationView key={entry.id} entry={entry} />
            ))}
          </section>
        ))}
      </main>
    </>
  );
}
