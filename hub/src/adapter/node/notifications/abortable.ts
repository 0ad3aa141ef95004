/**
 * Settles with `work`, or rejects with the signal's reason once it aborts. For libraries that take
 * no AbortSignal (nodemailer, mqtt.js): the work itself goes on until its own timeouts end it.
 */
export function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
