/**
 * A real HTTP JSON-RPC upstream on loopback in front of a real EVM node: it records every call it receives and passes
 * it on, unless told to misbehave the ways upstream nodes do (stall, reset the connection, answer 503, report another
 * chain id, answer a method in its own error convention).
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type Fault = 'none' | 'stall' | 'reset' | 'unavailable';

interface Call {
  id?: unknown;
  method: string;
  params?: unknown;
}

export class UpstreamProxy {
  /** Every call received, in order (batch members one by one). */
  readonly received: Call[] = [];
  fault: Fault = 'none';
  /** Added to every answer, so this upstream looks slower than another. */
  delayMs = 0;
  /** Answer eth_chainId with this instead of the node's. */
  chainId?: string;
  /** Answers given here instead of the node's, by method: the JSON-RPC `error` or `result` member. */
  readonly answers = new Map<string, { error: unknown } | { result: unknown }>();
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: http.Server,
    readonly target: string,
  ) {}

  static async start(target: string): Promise<UpstreamProxy> {
    const server = http.createServer();
    const proxy = new UpstreamProxy(server, target);
    server.on('connection', (s) => {
      proxy.sockets.add(s);
      s.once('close', () => proxy.sockets.delete(s));
    });
    server.on('request', (req, res) => void proxy.serve(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Methods received, in order. */
  methods(): string[] {
    return this.received.map((c) => c.method);
  }

  private async serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const body = JSON.parse(text) as Call | Call[];
    const calls = Array.isArray(body) ? body : [body];
    this.received.push(...calls);
    if (this.fault === 'stall') return;
    if (this.fault === 'reset') {
      req.socket.destroy();
      return;
    }
    if (this.fault === 'unavailable') {
      res.writeHead(503).end('overloaded');
      return;
    }
    const local = (c: Call) => (c.method === 'eth_chainId' && this.chainId ? { result: this.chainId } : this.answers.get(c.method));
    let replies: unknown[];
    if (calls.every(local)) replies = calls.map((c) => ({ jsonrpc: '2.0', id: c.id, ...local(c) }));
    else {
      const upstream = await fetch(this.target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
      const answered = (await upstream.json()) as unknown;
      replies = Array.isArray(answered) ? answered : [answered];
      replies = replies.map((r, i) => (local(calls[i]) ? { jsonrpc: '2.0', id: calls[i].id, ...local(calls[i]) } : r));
    }
    const out = JSON.stringify(Array.isArray(body) ? replies : replies[0]);
    if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
    res.writeHead(200, { 'content-type': 'application/json' }).end(out);
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise((r) => this.server.close(r));
  }
}
