import { open, readFile, rename } from 'node:fs/promises';
import * as v from 'valibot';
import { errorMessage } from '../../../shared/error-message';
import {
  isTerminal,
  type UpdateJournal,
  type UpdateOperation,
  UpdateOperationSchema,
} from '../../../shared/update-engine';

const JournalFileSchema = v.object({ operations: v.array(UpdateOperationSchema) });

/** Settled operations are kept this long (and at most this many) so a reconnect can still report them. */
const KEEP_SETTLED_MS = 24 * 60 * 60 * 1000;
const KEEP_SETTLED_MAX = 50;

/**
 * The agent's update journal (shared/update-engine UpdateJournal): every operation it runs, in one
 * JSON file beside its key. Each save rewrites the file through a temporary one, fsynced and renamed,
 * so a crash leaves the old or the new journal, never half of one. Without a file it keeps them in memory.
 */
export class UpdateJournalFile implements UpdateJournal {
  private readonly operations = new Map<string, UpdateOperation>();
  private writing: Promise<void> = Promise.resolve();

  private constructor(
    private readonly file: string | undefined,
    private readonly now: () => number,
  ) {}

  /** Reads the journal; a missing file is an empty one, an unreadable one fails loudly (it may hold an operation to recover). */
  static async open(file: string | undefined, now: () => number = Date.now): Promise<UpdateJournalFile> {
    const journal = new UpdateJournalFile(file, now);
    if (file === undefined) return journal;
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return journal;
      throw new Error(`update journal ${file}: ${errorMessage(error)}`, { cause: error });
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new Error(`update journal ${file}: not JSON (${errorMessage(error)})`, { cause: error });
    }
    const parsed = v.safeParse(JournalFileSchema, raw);
    if (!parsed.success) throw new Error(`update journal ${file}: ${parsed.issues[0]?.message ?? 'invalid'}`);
    for (const operation of parsed.output.operations) journal.operations.set(operation.id, operation);
    return journal;
  }

  static inMemory(): UpdateJournalFile {
    return new UpdateJournalFile(undefined, Date.now);
  }

  get(id: string): UpdateOperation | undefined {
    return this.operations.get(id);
  }

  all(): UpdateOperation[] {
    return [...this.operations.values()];
  }

  unsettled(): UpdateOperation[] {
    return this.all().filter((operation) => !isTerminal(operation));
  }

  save(operation: UpdateOperation): Promise<void> {
    this.operations.set(operation.id, operation);
    this.prune();
    const snapshot = JSON.stringify({ operations: this.all() });
    // Writes are serialized: the file always ends with the latest state.
    const write = this.writing.then(() => this.write(snapshot));
    this.writing = write.catch(() => undefined);
    return write;
  }

  /** Resolves once every save so far is on disk (a failed one included: it was reported to its caller). */
  flush(): Promise<void> {
    return this.writing;
  }

  private prune(): void {
    const settled = this.all()
      .filter(isTerminal)
      .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
    const cutoff = this.now() - KEEP_SETTLED_MS;
    settled.forEach((operation, index) => {
      if (index >= KEEP_SETTLED_MAX || Date.parse(operation.updatedAt) < cutoff) this.operations.delete(operation.id);
    });
  }

  private async write(text: string): Promise<void> {
    if (this.file === undefined) return;
    const temporary = `${this.file}.tmp`;
    const handle = await open(temporary, 'w', 0o600);
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, this.file);
  }
}
