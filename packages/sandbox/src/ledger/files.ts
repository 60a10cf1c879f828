/** The ledger's file service: what large Ethereum call data travels through (create, append, read, delete). */

export interface LedgerFile {
  id: string;
  contents: Buffer;
  deleted: boolean;
}

export class FileStore {
  readonly #files = new Map<string, LedgerFile>();

  create(id: string, contents: Uint8Array): LedgerFile {
    const file = { id, contents: Buffer.from(contents), deleted: false };
    this.#files.set(id, file);
    return file;
  }

  /** The live file, or undefined when it never existed or was deleted. */
  get(id: string): LedgerFile | undefined {
    const file = this.#files.get(id);
    return file && !file.deleted ? file : undefined;
  }

  /** Whether the id ever named a file (deleted files answer FILE_DELETED rather than INVALID_FILE_ID). */
  known(id: string): boolean {
    return this.#files.has(id);
  }

  append(id: string, contents: Uint8Array): void {
    const file = this.get(id);
    if (file) file.contents = Buffer.concat([file.contents, contents]);
  }

  delete(id: string): void {
    const file = this.get(id);
    if (file) {
      file.deleted = true;
      file.contents = Buffer.alloc(0);
    }
  }
}
