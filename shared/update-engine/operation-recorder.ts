import type { UpdateJournal, UpdateOperation } from './operation';

export interface RecorderDeps {
  journal: UpdateJournal;
  now: () => number;
  /** Test seam: told after every journal write, before the next step (crash tests pause here). */
  afterSave?: ((operation: UpdateOperation) => Promise<void>) | undefined;
}

type Patch = { [K in keyof UpdateOperation]?: UpdateOperation[K] };

/**
 * The one place an operation changes: every change is a journal write (http-interface §2.6: persisted at
 * every phase), stamped with updatedAt, and is complete before the next Docker call is made.
 */
export class OperationRecorder {
  constructor(
    private current: UpdateOperation,
    private readonly deps: RecorderDeps,
  ) {}

  get op(): UpdateOperation {
    return this.current;
  }

  /** Applies the patch, drops the `remove`d fields, and writes the result. */
  async save(patch: Patch, remove: readonly (keyof UpdateOperation)[] = []): Promise<UpdateOperation> {
    const next: Record<string, unknown> = {
      ...this.current,
      ...patch,
      updatedAt: new Date(this.deps.now()).toISOString(),
    };
    for (const key of remove) delete next[key];
    const operation = next as UpdateOperation;
    await this.deps.journal.save(operation);
    this.current = operation;
    await this.deps.afterSave?.(operation);
    return operation;
  }
}
