import WebSocket from 'ws';

/** A WebSocket client that keeps every message and its close code. */
export class Client {
  readonly messages: any[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private nextId = 1;

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => this.messages.push(JSON.parse(String(data))));
    this.closed = new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: String(reason) })));
  }

  static async open(url: string, headers: Record<string, string> = {}): Promise<Client> {
    const ws = new WebSocket(url, { headers });
    const client = new Client(ws);
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    return client;
  }

  /** Sends a body (a request, a batch, or raw text) and resolves with the answer to it (by id, or the next batch). */
  async send(body: unknown): Promise<any> {
    const before = this.messages.length;
    this.ws.send(typeof body === 'string' ? body : JSON.stringify(body));
    const id = (body as { id?: unknown })?.id;
    const match = (m: any) => (Array.isArray(body) || typeof body === 'string' ? Array.isArray(m) || m.id === null : m.id === id);
    return this.until(() => this.messages.slice(before).find(match));
  }

  call(method: string, params: unknown[] = []): Promise<any> {
    return this.send({ jsonrpc: '2.0', id: this.nextId++, method, params });
  }

  notifications(subscription: string): any[] {
    return this.messages.filter((m) => m.method === 'eth_subscription' && m.params.subscription === subscription).map((m) => m.params.result);
  }

  async until<T>(find: () => T | undefined): Promise<T> {
    for (;;) {
      const found = find();
      if (found !== undefined) return found;
      if (this.ws.readyState !== WebSocket.OPEN) throw new Error(`socket closed: ${JSON.stringify(await this.closed)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  close(): void {
    this.ws.close();
  }
}
