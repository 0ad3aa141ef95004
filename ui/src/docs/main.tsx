import { render } from 'preact';
import '../styles.css';
import './docs.css';
import { errorMessage } from '../../../shared/error-message';
import type { OpenApiDocument } from './openapi-model';
import { Reference } from './reference';

/**
 * The browsable API reference at /api/v1/docs: the hub's own OpenAPI document, fetched from the
 * same origin and rendered here, so the page needs no inline script and nothing from a CDN.
 */
async function start(root: HTMLElement): Promise<void> {
  try {
    const response = await fetch('/api/v1/openapi.json', { headers: { accept: 'application/json' } });
    if (!response.ok) throw new Error(`the hub answered ${response.status}`);
    const document = (await response.json()) as OpenApiDocument;
    render(<Reference document={document} />, root);
  } catch (error) {
    render(
      <main id="main">
        <h1>API reference</h1>
        <p role="alert">
          The OpenAPI document could not be loaded ({errorMessage(error)}). It is at{' '}
          <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.
        </p>
      </main>,
      root,
    );
  }
}

const root = document.getElementById('app');
if (root) void start(root);
