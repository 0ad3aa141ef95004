/** The largest request body the hub reads (1 MiB); a larger one is refused with 413 before it is read. */
export const MAX_BODY_BYTES = 1024 * 1024;
