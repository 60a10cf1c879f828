import type { Redis } from 'ioredis';

type Args = Array<string | number>;

/**
 * One Lua function applied to many calls in one round trip. Calls made while a batch is on the wire queue up and go
 * out together as the next one, so at low load a call waits for nothing but its own round trip and under load one
 * round trip (and one script run) serves every call that arrived during the previous one. Each call's reply is what
 * the function returned for it, in order; the script runs atomically, so every call sees the effects of those before it.
 *
 * The function is written as `function(keys, argv) ... end` over its own keys and arguments. All calls of a batch
 * run in one script, so on a Redis Cluster their keys must hash to one slot.
 */
export class ScriptBatch<Reply> {
  private queued: Array<{ keys: string[]; argv: Args | (() => Args); resolve: (r: Reply) => void; reject: (e: unknown) => void }> = [];
  private inFlight = false;
  private readonly command: string;

  constructor(
    private readonly client: Redis,
    name: string,
    fn: string,
  ) {
    this.command = `gwBatch_${name}`;
    // ARGV is a run of entries: key count, argument count, the arguments; KEYS holds each entry's keys in turn.
    const lua = `local one = ${fn}
local out, k, a = {}, 1, 1
while a <= #ARGV do
  local nk, na = tonumber(ARGV[a]), tonumber(ARGV[a + 1])
  local keys, argv = {}, {}
  for i = 1, nk do keys[i] = KEYS[k + i - 1] end
  for i = 1, na do argv[i] = ARGV[a + 1 + i] end
  k, a = k + nk, a + 2 + na
  out[#out + 1] = one(keys, argv)
end
return out`;
    client.defineCommand(this.command, { lua });
  }

  /** `argv` may be a function, called when the batch goes out: a call can then carry what accrued while it waited. */
  call(keys: string[], argv: Args | (() => Args)): Promise<Reply> {
    return new Promise<Reply>((resolve, reject) => {
      this.queued.push({ keys, argv, resolve, reject });
      // The first call waits for the rest of this tick's calls, then goes.
      if (!this.inFlight && this.queued.length === 1) process.nextTick(() => this.send());
    });
  }

  private send(): void {
    if (this.inFlight || this.queued.length === 0) return;
    const batch = this.queued;
    this.queued = [];
    this.inFlight = true;
    const keys: string[] = [];
    const argv: Array<string | number> = [];
    for (const c of batch) {
      keys.push(...c.keys);
      const args = typeof c.argv === 'function' ? c.argv() : c.argv;
      argv.push(c.keys.length, args.length, ...args);
    }
    const run = (this.client as unknown as Record<string, (...args: Array<string | number>) => Promise<Reply[]>>)[this.command];
    run.call(this.client, keys.length, ...keys, ...argv).then(
      (replies) => {
        for (const [i, c] of batch.entries()) c.resolve(replies[i]);
        this.next();
      },
      (err: unknown) => {
        for (const c of batch) c.reject(err);
        this.next();
      },
    );
  }

  private next(): void {
    this.inFlight = false;
    this.send();
  }
}
