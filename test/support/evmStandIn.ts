/**
 * An EVM JSON-RPC upstream on loopback that serves a synthetic chain up to a head the test moves: blocks, one
 * transaction and receipt per block, and one log every `logEvery` blocks. Its eth_getLogs refuses ranges wider than
 * `capBlocks` with a real provider's words, and it records every call it receives.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Refusals of a too-wide eth_getLogs, as providers word them. */
export const REFUSALS = {
  /** BSC and geth-based providers: a fixed cap, named. */
  namedCap: (cap: number) => ({ code: -32000, message: `exceed maximum block range: ${cap}` }),
  /** Alchemy: a range that works, in the message. */
  hintedRange: (from: number, cap: number) => ({
    code: -32602,
    message: `Log response size exceeded. You can make eth_getLogs requests with up to a ${cap} block range and no limit on the response size, or you can request any block range with a cap of 10K logs in the response. Based on your parameters, this block range should work: [0x${from.toString(16)}, 0x${(from + cap - 1).toString(16)}]`,
  }),
  /** Infura: too many results, with a range that works in `data`. */
  infura: (from: number, cap: number) => ({
    code: -32005,
    message: 'query returned more than 10000 results',
    data: { from: `0x${from.toString(16)}`, to: `0x${(from + cap - 1).toString(16)}` },
  }),
  /** A provider that names nothing. */
  tooWide: () => ({ code: -32000, message: 'block range is too wide' }),
} as const;

export type RefusalStyle = keyof typeof REFUSALS;

export interface StandInOptions {
  chainId: number;
  head: number;
  capBlocks?: number;
  refusal?: RefusalStyle;
  logEvery?: number;
  /** Answers this much later, so the gateway's latency score ranks it after a prompt upstream. */
  delayMs?: number;
}

interface Call {
  id: unknown;
  method: string;
  params: unknown[];
}

const hex = (n: number) => `0x${n.toString(16)}`;
const hash = (kind: number, n: number) => `0x${kind.toString(16).padStart(2, '0')}${n.toString(16).padStart(62, '0')}`;

export class EvmStandIn {
  readonly received: Call[] = [];
  head: number;
  /** Answers every request 503 while set, as a node behind a failing load balancer does. */
  down = false;

  private constructor(
    private readonly server: Server,
    readonly opts: StandInOptions,
  ) {
    this.head = opts.head;
  }

  static async start(opts: StandInOptions): Promise<EvmStandIn> {
    let standIn: EvmStandIn | undefined;
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        if (standIn!.down) return void res.writeHead(503).end();
        const parsed = JSON.parse(body) as Call | Call[];
        const answers = (Array.isArray(parsed) ? parsed : [parsed]).map((c) => standIn!.answer(c));
        const reply = () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(Array.isArray(parsed) ? answers : answers[0]));
        if (opts.delayMs) setTimeout(reply, opts.delayMs);
        else reply();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    standIn = new EvmStandIn(server, opts);
    return standIn;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The calls of `method` received while `run` ran. */
  async calls(method: string, run: () => Promise<unknown>): Promise<Call[]> {
    const before = this.received.length;
    await run();
    return this.received.slice(before).filter((c) => c.method === method);
  }

  /** Resolves once this upstream has answered two eth_blockNumber since the call: the gateway's probe has seen its head. */
  async probed(): Promise<void> {
    const count = () => this.received.filter((c) => c.method === 'eth_blockNumber').length;
    const target = count() + 2;
    while (count() < target) await new Promise((r) => setTimeout(r, 10));
  }

  /** The logs of blocks `from` to `to`, as the stand-in's eth_getLogs answers them. */
  logs(from: number, to: number): Array<Record<string, string>> {
    const every = this.opts.logEvery ?? 1;
    const out = [];
    for (let b = Math.ceil(from / every) * every; b <= Math.min(to, this.head); b += every) {
      out.push({ address: hex(0xabc), blockNumber: hex(b), blockHash: hash(1, b), transactionHash: hash(2, b), transactionIndex: '0x0', logIndex: '0x0', data: '0x', topics: [], removed: false });
    }
    return out as any;
  }

  private answer(call: Call): unknown {
    this.received.push(call);
    const ok = (result: unknown) => ({ jsonrpc: '2.0', id: call.id, result });
    const [p0] = call.params ?? [];
    switch (call.method) {
      case 'eth_chainId':
        return ok(hex(this.opts.chainId));
      case 'eth_blockNumber':
        return ok(hex(this.head));
      case 'eth_getBlockByNumber': {
        const n = p0 === 'latest' ? this.head : Number(p0);
        return ok(n > this.head ? null : { number: hex(n), hash: hash(1, n), parentHash: hash(1, Math.max(0, n - 1)), transactions: [hash(2, n)] });
      }
      case 'eth_getTransactionReceipt': {
        const n = Number(BigInt(`0x${String(p0).slice(4)}`));
        return ok(n > this.head ? null : { transactionHash: p0, blockNumber: hex(n), blockHash: hash(1, n), status: '0x1', logs: [] });
      }
      case 'eth_getLogs': {
        const f = p0 as { fromBlock?: string; toBlock?: string };
        const at = (b: string | undefined) => (b === undefined || b === 'latest' ? this.head : b === 'earliest' ? 0 : Number(b));
        const [from, to] = [at(f.fromBlock), at(f.toBlock)];
        const cap = this.opts.capBlocks;
        if (cap !== undefined && to - from + 1 > cap) {
          const style = this.opts.refusal ?? 'namedCap';
          const error = style === 'namedCap' ? REFUSALS.namedCap(cap) : style === 'tooWide' ? REFUSALS.tooWide() : REFUSALS[style](from, cap);
          return { jsonrpc: '2.0', id: call.id, error };
        }
        return ok(this.logs(from, to));
      }
      default:
        return { jsonrpc: '2.0', id: call.id, error: { code: -32601, message: `the method ${call.method} does not exist/is not available` } };
    }
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
