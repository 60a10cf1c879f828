import { closeSync, fsyncSync, openSync } from 'node:fs';
import { open, readFile, rename, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';

/** What the owner of a journal holds in memory: the records that rebuild it, and how many that is. */
export interface JournalState<R> {
  snapshot(): R[];
  size(): number;
}

/**
 * An append-only file of JSON lines: each line is one change, written and flushed to disk (fdatasync) before its
 * promise resolves, so a change that was answered survives a crash. Changes that arrive while a flush runs go to disk
 * together in the next one. A crash can leave at most the last line torn; opening drops it. When the file has grown to
 * several times what the current state needs, it is rewritten from a snapshot (to a new file, flushed, then renamed
 * over the old one, so a crash leaves either the old or the new file whole).
 */
export class Journal<R> {
  private pending: Array<{ line: string; resolve(): void; reject(err: unknown): void } | { compact: true }> = [];
  private flushing?: Promise<void>;
  private lines = 0;

  private constructor(
    private readonly path: string,
    private handle: FileHandle,
    private size: number,
    private readonly state: JournalState<R>,
  ) {}

  /** Opens (or creates) the file and hands every record in it to `apply`, oldest first. */
  static async open<R>(path: string, apply: (record: R) => void, state: JournalState<R>): Promise<Journal<R>> {
    let text = '';
    try {
      text = await readFile(path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    const complete = text.lastIndexOf('\n') + 1;
    const lines = text.slice(0, complete).split('\n').slice(0, -1);
    let good = 0;
    for (const [i, line] of lines.entries()) {
      let records: R[];
      try {
        records = JSON.parse(line) as R[];
      } catch (err) {
        // Only the last line can be torn by a crash; a bad line before it is damage that must not be skipped silently.
        if (i === lines.length - 1) break;
        throw new Error(`${path}: line ${i + 1} is not valid JSON (${(err as Error).message}); the file is damaged`);
      }
      for (const record of records) apply(record);
      good += Buffer.byteLength(line) + 1;
    }
    const handle = await open(path, 'a+', 0o600);
    if (good < Buffer.byteLength(text)) await handle.truncate(good);
    const journal = new Journal(path, handle, good, state);
    journal.lines = lines.length;
    return journal;
  }

  /** Appends records as one line: they become durable together or not at all. */
  append(records: R[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ line: `${JSON.stringify(records)}\n`, resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  /** Rewrites the file as the snapshot of the current state. */
  compact(): Promise<void> {
    this.pending.push({ compact: true });
    return (this.flushing ??= this.flush());
  }

  async close(): Promise<void> {
    await this.flushing;
    await this.handle.close();
  }

  private async flush(): Promise<void> {
    while (this.pending.length > 0) {
      const first = this.pending[0];
      if ('compact' in first) {
        this.pending.shift();
        await this.rewrite();
        continue;
      }
      const batch: Array<{ line: string; resolve(): void; reject(err: unknown): void }> = [];
      while (this.pending.length > 0 && !('compact' in this.pending[0])) batch.push(this.pending.shift() as (typeof batch)[number]);
      const text = batch.map((b) => b.line).join('');
      try {
        await this.handle.write(text);
        await this.handle.datasync();
        this.size += Buffer.byteLength(text);
        this.lines += batch.length;
        for (const b of batch) b.resolve();
      } catch (err) {
        // A half-written batch must not stay in front of the next one.
        await this.handle.truncate(this.size).catch(() => {});
        for (const b of batch) b.reject(err);
      }
      if (this.lines > COMPACT_MIN_LINES && this.lines > COMPACT_FACTOR * this.state.size()) this.pending.push({ compact: true });
    }
    this.flushing = undefined;
  }

  private async rewrite(): Promise<void> {
    // The records just written are applied by their callers on resolution; let that happen before reading the state.
    await new Promise((resolve) => setImmediate(resolve));
    const records = this.state.snapshot();
    const tmp = `${this.path}.tmp`;
    const text = records.map((r) => `${JSON.stringify([r])}\n`).join('');
    const out = await open(tmp, 'w', 0o600);
    try {
      await out.write(text);
      await out.datasync();
    } finally {
      await out.close();
    }
    await rename(tmp, this.path);
    syncDirectory(dirname(this.path));
    await this.handle.close();
    this.handle = await open(this.path, 'a+', 0o600);
    this.size = Buffer.byteLength(text);
    this.lines = records.length;
  }
}

/** Lines beyond which the file is rewritten, once they are also COMPACT_FACTOR times the snapshot. */
const COMPACT_MIN_LINES = 10_000;
const COMPACT_FACTOR = 4;

/** Makes a rename durable: the directory entry itself must reach the disk. */
function syncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
