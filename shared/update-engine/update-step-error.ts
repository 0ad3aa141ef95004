/** A step of the update found the new state unacceptable (unhealthy, exited, …): the reason is the message. */
export class UpdateStepError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UpdateStepError';
  }
}

/** Raised at a phase boundary once the operation was cancelled; the reason says by whom. */
export class UpdateCancelledError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'UpdateCancelledError';
  }
}

/** The abort reason of a cancelled operation, as text. */
export function cancelReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (typeof reason === 'string') return reason;
  return reason instanceof Error ? reason.message : 'cancelled';
}
