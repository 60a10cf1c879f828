/** Devnets for every EVM network, each started on first use so that twenty configured networks cost nothing idle. */
import type { Devnet } from './devnet.js';

export class DevnetPool {
  readonly #started = new Map<string, Promise<Devnet>>();
  #closed = false;

  constructor(private readonly opts: { host?: string; history?: boolean; blockIntervalMs?: number } = {}) {}

  /** The devnet's URL, starting it if needed; concurrent first calls share one start. */
  async urlFor(networkId: string, chainId: number): Promise<string> {
    if (this.#closed) throw new Error('devnet pool is closed');
    let devnet = this.#started.get(networkId);
    if (!devnet) {
      // The devnet's code (an EVM, its history) loads with the first one.
      devnet = import('./devnet.js').then(({ startDevnet }) => startDevnet({ chainId, host: this.opts.host, history: this.opts.history, blockIntervalMs: this.opts.blockIntervalMs }));
      this.#started.set(networkId, devnet);
      // A failed start is forgotten so the next use retries instead of failing forever.
      devnet.catch(() => this.#started.delete(networkId));
    }
    return (await devnet).url;
  }

  /** Network ids whose devnet has been started. */
  started(): string[] {
    return [...this.#started.keys()];
  }

  async close(): Promise<void> {
    this.#closed = true;
    const all = [...this.#started.values()];
    this.#started.clear();
    await Promise.all(all.map(async (d) => (await d.catch(() => undefined))?.close()));
  }
}
