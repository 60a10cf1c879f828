import { GatewayError } from '../errors.js';

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

  /** Takes a slot for `client` or throws; the release it returns frees the slot once, however often it is called. */
  take(client: string): () => void {
    const held = this.perClient.get(client) ?? 0;
    if (this.total >= this.max) throw new GatewayError('SOCKETS_BUSY');
    if (held >= this.maxPerClient) throw this.refusal(`at most ${this.maxPerClient} may wait at once`);
    if (held > 0 && this.total >= this.max - this.reserved) throw this.refusal('the last waiting slots are kept for other addresses');
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

  private refusal(detail: string): GatewayError {
    return new GatewayError('SOCKETS_PER_CLIENT', detail, undefined, { 'retry-after': String(Math.max(1, Math.ceil(this.authTimeoutMs / 1_000))) });
  }
}
