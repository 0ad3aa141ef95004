import type { ErrorBody } from '../../../shared/schemas/error-body';

const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  410: 'Gone',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  428: 'Precondition Required',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
  507: 'Insufficient Storage',
};

export function statusText(status: number): string {
  return STATUS_TEXT[status] ?? (status >= 500 ? 'Server Error' : 'Request Error');
}

/** Builds an http-interface §2.15 body: the message defaults to the status text; details only when present. */
export function errorBody(status: number, message?: string, details?: Record<string, unknown>): ErrorBody {
  const body: ErrorBody = { error: message ?? statusText(status) };
  if (details && Object.keys(details).length > 0) body.details = details;
  return body;
}

/** Thrown anywhere in a handler to end the request with a JSON error. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message?: string,
    readonly details?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
  ) {
    super(message ?? statusText(status));
    this.name = 'HttpError';
  }
}
