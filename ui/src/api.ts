// The hub's API, typed from the project's own schemas (types only: nothing of valibot is bundled).

import type { InferOutput } from 'valibot';
import type { Agent } from '../../shared/schemas/agent';
import type { AuthStatus } from '../../shared/schemas/auth-status';
import type { Container } from '../../shared/schemas/container';
import type { BulkUpdateAnswerSchema } from '../../shared/schemas/container-views';
import type { ErrorBody } from '../../shared/schemas/error-body';
import type { UpdatePreview } from '../../shared/schemas/update-views';

export type { Agent, AuthStatus, Container, UpdatePreview };

export interface Page<T> {
  data: T[];
  total: number;
  limit: number;
  offset: number;
  hasMore: boolean;
}
/** POST /containers/update (http-interface §4.8): each container accepted with its operation, or refused. */
export type BulkUpdateAnswer = InferOutput<typeof BulkUpdateAnswerSchema>;
export interface CurrentUser {
  username: string;
  assurance?: string;
  anonymous?: boolean;
}
export interface Summary {
  containers: { total: number; running: number; stopped: number; updatesAvailable: number };
  security: { issues: number };
  hotUpdates: number;
  matureUpdates: number;
}
export interface RecentStatus {
  statuses: Record<string, string>;
}

/** A failed call, with a sentence a person can act on. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: ErrorBody | undefined,
  ) {
    super(message);
  }
}

let onUnauthorized: (message: string) => void = () => undefined;
/** Where a 401 from any call sends the person (the sign-in view, with a message). */
export function setUnauthorizedHandler(handler: (message: string) => void): void {
  onUnauthorized = handler;
}

function plainWords(status: number, body: ErrorBody | undefined, retryAfter: string | null): string {
  const said = body?.error;
  switch (status) {
    case 401:
      return 'Your session has ended. Please sign in again.';
    case 403: {
      const details = body?.details ?? {};
      const scope = details['requiredScope'] ?? details['scope'] ?? details['required'];
      if (typeof scope === 'string') return `You are not allowed to do this: it needs the "${scope}" permission.`;
      return `You are not allowed to do this${said ? `: ${said}` : '.'}`;
    }
    case 429: {
      const seconds = Number(retryAfter ?? body?.details?.['retryAfterSeconds']);
      return Number.isFinite(seconds) && seconds > 0
        ? `Too many requests. Try again in ${seconds < 90 ? `${Math.ceil(seconds)} seconds` : `${Math.ceil(seconds / 60)} minutes`}.`
        : 'Too many requests. Try again in a moment.';
    }
    case 0:
      return 'The hub cannot be reached. Check that it is running.';
    default:
      return said ?? `The hub answered ${status}.`;
  }
}

interface CallOptions {
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** The sign-in form handles its own 401 (wrong credentials), so it is not a session that ended. */
  expectUnauthorized?: boolean;
  /** Cancels the call: it then rejects with the signal's reason (see isAborted), never with an ApiError. */
  signal?: AbortSignal | undefined;
}

/** True for the rejection of a call its signal cancelled: nobody waits for it, so nothing is shown. */
export function isAborted(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}

export async function call<T>(path: string, options: CallOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(`/api/v1${path}`, {
      method: options.method ?? 'GET',
      headers,
      credentials: 'same-origin',
      ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
      ...(options.signal && { signal: options.signal }),
    });
  } catch (error) {
    if (isAborted(error)) throw error;
    throw new ApiError(0, plainWords(0, undefined, null), undefined);
  }
  const text = await response.text();
  const json = text ? (JSON.parse(text) as unknown) : undefined;
  if (!response.ok) {
    const body = json as ErrorBody | undefined;
    const error = new ApiError(
      response.status,
      plainWords(response.status, body, response.headers.get('retry-after')),
      body,
    );
    if (response.status === 401 && !options.expectUnauthorized) onUnauthorized(error.message);
    throw error;
  }
  return json as T;
}

export const api = {
  authStatus: () => call<AuthStatus>('/auth/status'),
  user: () => call<CurrentUser>('/auth/user', { expectUnauthorized: true }),
  login: (body: { username: string; password: string; otp?: string; recoveryCode?: string }) =>
    call<CurrentUser>('/auth/login', { method: 'POST', body, expectUnauthorized: true }),
  logout: () => call<unknown>('/auth/logout', { method: 'POST' }),
  summary: () => call<Summary>('/containers/summary'),
  recentStatus: () => call<RecentStatus>('/containers/recent-status'),
  agents: () => call<{ data: Agent[]; total: number }>('/agents'),
  containers: (query: URLSearchParams) => call<Page<Container>>(`/containers?${query}`),
  container: (id: string, signal?: AbortSignal) => call<Container>(`/containers/${encodeURIComponent(id)}`, { signal }),
  watch: (id: string) => call<Container>(`/containers/${encodeURIComponent(id)}/watch`, { method: 'POST' }),
  preview: (id: string) => call<UpdatePreview>(`/containers/${encodeURIComponent(id)}/preview`, { method: 'POST' }),
  update: (id: string) =>
    call<{ message: string; operationId: string }>(`/containers/${encodeURIComponent(id)}/update`, { method: 'POST' }),
  bulkUpdate: (containerIds: string[]) =>
    call<BulkUpdateAnswer>('/containers/update', { method: 'POST', body: { containerIds } }),
};
