import { GatewayError } from '../errors.js';

/** Why a slot was refused: every slot is taken, the client holds its share, or only the reserved quarter is left. */
export type PendingRefusal = 'busy' | 'perClient' | 'reserved';

/**
 * The slots of WebSockets that have not authenticated yet: at most `max` in all and `maxPerClient` per client address,
 * and the last quarter of `max` only for addresses that hold none, so a handful of addresses cannot fill the gateway's
 * slots and keep everyone else from authenticating in their first message. The map holds only addresses with a socket
 * waiting, so it never outgrows `max`.
 */
export class PendingSockets {
  private total = 0;
  private readonly perClient = new Map<string, number>();
  private readonly reserved: number;

  constructor(
    private readonly max: number,
    private readonly maxPerClient: number,
    /** How long a socket may wait to authenticate: when a slot of the client's is free again at the latest. */
    private readonly authTimeoutMs: number,
  ) {
    this.reserved = Math.floor(max / 4);
  }

  /**
   * Takes a slot for `client`: the release, which frees the slot once however often it is called, or why not. A
   * refusal is a word rather than a thrown error, as a flood of handshakes is refused thousands of times a second.
   */
  take(client: string): (() => void) | PendingRefusal {
    const held = this.perClient.get(client) ?? 0;
    if (this.total >= this.max) return 'busy';
    if (held >= this.maxPerClient) return 'perClient';
    if (held > 0 && this.total >= this.max - this.reserved) return 'reserved';
    this.total++;
    this.perClient.set(client, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      const left = this.perClient.get(client)! - 1;
      if (left === 0) this.perClient.delete(client);
      else this.perClient.set(client, left);
    };
  }

  /** The answer to a refused slot. */
  refusal(why: PendingRefusal): GatewayError {
    if (why === 'busy') return new GatewayError('SOCKETS_BUSY');
    const retryAfter = { 'retry-after': String(Math.max(1, Math.ceil(this.authTimeoutMs / 1_000))) };
    const detail = why === 'perClient' ? `at most ${this.maxPerClient} may wait at once` : 'the last waiting slots are kept for other addresses';
    return new GatewayError('SOCKETS_PER_CLIENT', detail, undefined, retryAfter);
  }
}
