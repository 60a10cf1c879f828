/**
 * The widest block span an EVM network's upstream is asked for logs over (eth_getLogs, log filters, subscriptions):
 * local EVM nodes answer `earliest` to `latest` by scanning every block. The span is checked on resolved bounds, as the
 * node will read them: `earliest` is block 0, any other tag and a missing bound are the upstream's head.
 */
import { GatewayError } from '../errors.js';
import { blockNumberOrTag } from '../methods/params.js';
import type { Span } from './logSplit.js';

/**
 * How long a head read to resolve tags is reused. A span checked against an older head can pass the bound by the
 * blocks made since, so this stays short; it saves an eth_blockNumber per call under a stream of tagged queries.
 */
const HEAD_MAX_AGE_MS = 1_000;

/** The block fields of an eth_getLogs filter, as the client sent them. */
export interface LogBounds {
  fromBlock?: unknown;
  toBlock?: unknown;
  blockHash?: unknown;
}

export class LogRange {
  private known?: { head: number; at: number };
  private reading?: Promise<number>;

  /** `readHead` asks the upstream for eth_blockNumber and throws a GatewayError when it cannot. */
  constructor(
    readonly maxBlocks: number,
    private readonly readHead: () => Promise<number>,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The bounds as block numbers; refuses bounds spanning more than `maxBlocks` (the rpcPolicy's, unless the caller's
   * plan sets its own) with RANGE_TOO_LARGE, naming `method`. A bound that is not a block
   * number or tag is refused as the node would refuse it, and a head that cannot be read refuses the call: neither goes
   * upstream unchecked. A blockHash query reads one block, and gives no span.
   */
  async check(method: string, bounds: LogBounds | undefined, maxBlocks = this.maxBlocks): Promise<Span | undefined> {
    const { fromBlock, toBlock, blockHash } = bounds ?? {};
    if (blockHash !== undefined && blockHash !== null && fromBlock === undefined && toBlock === undefined) return undefined;
    const from = blockNumberOrTag(fromBlock, 'filter.fromBlock');
    const to = blockNumberOrTag(toBlock, 'filter.toBlock');
    const resolve = async (bound: typeof from) => ('number' in bound ? bound.number : bound.tag === 'earliest' ? 0 : this.head());
    const [first, last] = await Promise.all([resolve(from), resolve(to)]);
    if (last - first >= maxBlocks) throw new GatewayError('RANGE_TOO_LARGE', `${method} spans at most ${maxBlocks} blocks`);
    return { from: first, to: last };
  }

  private async head(): Promise<number> {
    if (this.known && this.now() - this.known.at < HEAD_MAX_AGE_MS) return this.known.head;
    // Tagged queries arriving together share one read.
    this.reading ??= this.readHead()
      .then((head) => {
        this.known = { head, at: this.now() };
        return head;
      })
      .finally(() => (this.reading = undefined));
    return this.reading;
  }
}
