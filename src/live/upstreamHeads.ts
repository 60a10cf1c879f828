/**
 * An EVM network's upstream WebSocket (`wsUpstreams`) as a block announcer: one `eth_subscribe("newHeads")` per
 * network while anyone subscribes at the gateway. Each announcement wakes the network's feed, which then reads the
 * new blocks and logs as it would after a poll, so reorganisations and gaps are handled in one place. On failure the
 * next URL is tried after a back-off, and the feed's poll carries on meanwhile.
 */
import WebSocket from 'ws';
import type { Logger } from 'pino';
import type { HeadSignal } from './feed.js';

const BACKOFF_MIN_MS = 500;
const BACKOFF_MAX_MS = 30_000;

export class UpstreamHeads implements HeadSignal {
  private socket?: WebSocket;
  private retry?: NodeJS.Timeout;
  private attempt = 0;
  private open_ = false;

  constructor(
    private readonly urls: string[],
    private readonly timeoutMs: number,
    private readonly logger?: Logger,
  ) {}

  open(onBlock: () => void, onState: (up: boolean) => void): void {
    this.open_ = true;
    this.connect(onBlock, onState);
  }

  close(): void {
    this.open_ = false;
    clearTimeout(this.retry);
    this.socket?.removeAllListeners();
    this.socket?.on('error', () => {});
    this.socket?.terminate();
    this.socket = undefined;
  }

  private connect(onBlock: () => void, onState: (up: boolean) => void): void {
    const url = this.urls[this.attempt % this.urls.length];
    const socket = new WebSocket(url, { handshakeTimeout: this.timeoutMs });
    this.socket = socket;
    socket.on('open', () => socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] })));
    socket.on('message', (data) => {
      let msg: { id?: unknown; result?: unknown; method?: unknown };
      try {
        msg = JSON.parse(String(data));
      } catch {
        return;
      }
      if (msg.id === 1 && typeof msg.result === 'string') {
        this.attempt = 0;
        onState(true);
      } else if (msg.method === 'eth_subscription') onBlock();
    });
    socket.on('error', (err) => this.logger?.warn({ err: { message: err.message } }, 'upstream WebSocket failed; polling the HTTP upstream meanwhile'));
    socket.on('close', () => {
      onState(false);
      if (!this.open_ || this.socket !== socket) return;
      const wait = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** Math.min(this.attempt, 10));
      this.attempt++;
      this.retry = setTimeout(() => this.connect(onBlock, onState), wait);
      this.retry.unref();
    });
  }
}
