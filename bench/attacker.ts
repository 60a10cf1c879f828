/**
 * One attack from the abuse-resistance review, run against a gateway from its own process so that it does not take
 * the load generator's CPU. Forked by bench/attacks.ts with a `Job` as JSON in argv[2]; sends `ready` once the attack
 * has ramped up, and on `stop` (or after `maxSeconds`, so it always ends by itself) sends what the attacker achieved
 * and exits.
 */
import net from 'node:net';
import { Agent, fetch } from 'undici';
import WebSocket from 'ws';
import { defaultPlans } from '../src/config/catalogue.js';
import { call } from './harness.js';

/** `none` is the control: an attacker process that sends nothing, so two runs differ only by the machine's noise. */
export type AttackKind = 'none' | 'fragmentBomb' | 'legacyNumericIds' | 'mcpKeyless' | 'keylessSockets' | 'slowBodies' | 'slowHeaders' | 'aliasBomb' | 'wideLogs';

export interface AttackJob {
  kind: AttackKind;
  /** The gateway's base URL. */
  base: string;
  /** A key on the catalogue's free plan. */
  freeKey: string;
  maxSeconds: number;
}

/** What the attacker saw; `answers` counts each answer by HTTP status, close code or error code. */
export interface AttackerStats {
  sent: number;
  accepted: number;
  refused: number;
  /** Requests or sockets that ended in a network error or were cut without an answer. */
  failed: number;
  bytesSent: number;
  bytesReceived: number;
  /** Most sockets the attacker held open at once. */
  socketsOpen: number;
  answers: Record<string, number>;
  note?: string;
}

const job = JSON.parse(process.argv[2]) as AttackJob;
/**
 * The attacker's own loopback address, as a client elsewhere would have its own: budgets and bounds kept per client
 * address then tell it from the legitimate load on 127.0.0.1, as they would in production.
 */
const FROM = '127.0.0.2';
const dispatcher = new Agent({ connect: { localAddress: FROM } });
const stats: AttackerStats = { sent: 0, accepted: 0, refused: 0, failed: 0, bytesSent: 0, bytesReceived: 0, socketsOpen: 0, answers: {} };
let stopping = false;
let open = 0;
const opened = () => (stats.socketsOpen = Math.max(stats.socketsOpen, ++open));
const answer = (name: string) => (stats.answers[name] = (stats.answers[name] ?? 0) + 1);
const wsBase = job.base.replace(/^http/, 'ws');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function finish(): void {
  if (stopping) return;
  stopping = true;
  process.send!({ stats }, () => process.exit(0));
}
process.on('message', (m) => m === 'stop' && finish());
setTimeout(finish, job.maxSeconds * 1000).unref();

/** `workers` loops posting what `bodies` gives; an answer is accepted when `ok` says so (by default: 2xx without errors). */
function postLoop(
  path: string,
  headers: Record<string, string>,
  bodies: () => string | Promise<string>,
  workers: number,
  ok = (status: number, text: string) => status < 300 && !text.includes('"errors"'),
): void {
  const worker = async () => {
    while (!stopping) {
      const body = await bodies();
      stats.sent++;
      stats.bytesSent += Buffer.byteLength(body);
      try {
        const res = await fetch(job.base + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body, dispatcher });
        const text = await res.text();
        stats.bytesReceived += Buffer.byteLength(text);
        const code = /"code":\s*"?([A-Za-z_0-9-]+)/.exec(text)?.[1];
        answer(`${res.status}${code ? ` ${code}` : ''}`);
        if (ok(res.status, text)) stats.accepted++;
        else stats.refused++;
      } catch {
        stats.failed++;
      }
    }
  };
  for (let i = 0; i < workers; i++) void worker();
}

/**
 * Each fragment spreads the next one twice: 2^n paths from about 45 bytes a level. 20 levels, not the review's 22:
 * each level doubles the time one query holds the gateway (2.6 s at 20), and a run must end within seconds.
 */
function fragmentBomb(levels = 20): string {
  const fragments = Array.from({ length: levels }, (_, i) => `fragment F${i} on transaction{...F${i + 1} ...F${i + 1}}`);
  return `{transaction(limit:1){...F0}}${fragments.join('')}fragment F${levels} on transaction{index}`;
}

/** `count` aliases of the widest list field the sandbox's ledger GraphQL has. */
const aliasBomb = (count: number) => `{${Array.from({ length: count }, (_, i) => `a${i}:transaction(limit:1000){index}`).join('')}}`;

/** Keeps `count` WebSockets open, reopening any the gateway closes; `onOpen` may speak on each. */
function holdSockets(url: string, protocol: string, count: number, headers: Record<string, string> = {}) {
  const one = () => {
    if (stopping) return;
    stats.sent++;
    const ws = new WebSocket(url, protocol, { headers, localAddress: FROM });
    let wasOpen = false;
    ws.on('open', () => {
      wasOpen = true;
      stats.accepted++;
      opened();
    });
    ws.on('message', (data: Buffer) => (stats.bytesReceived += data.length));
    let refused = false;
    ws.on('unexpected-response', (_req, res) => {
      refused = true;
      stats.refused++;
      answer(`${res.statusCode}`);
      res.resume();
      ws.terminate();
    });
    // Terminating a refused handshake ends in an error too: it was counted as refused.
    ws.on('error', () => !wasOpen && !refused && stats.failed++);
    ws.on('close', (code) => {
      if (wasOpen) {
        open--;
        answer(`close ${code}`);
      }
      // A refused handshake is retried after a pause, as a patient attacker would.
      setTimeout(one, wasOpen ? 0 : 200);
    });
  };
  for (let i = 0; i < count; i++) one();
}

/** Keeps `count` raw TCP connections sending `head` and then `chunk` every `everyMs`, reopening any the gateway closes. */
function trickle(count: number, head: string, chunk: Buffer, everyMs: number, total = Infinity) {
  const one = () => {
    if (stopping) return;
    stats.sent++;
    const socket = net.connect({ port: Number(new URL(job.base).port), host: '127.0.0.1', localAddress: FROM });
    let timer: NodeJS.Timeout | undefined;
    let sent = 0;
    let answered = false;
    socket.once('connect', () => {
      opened();
      socket.write(head);
      stats.bytesSent += head.length;
      timer = setInterval(() => {
        if (sent >= total) return clearInterval(timer);
        socket.write(chunk);
        sent += chunk.length;
        stats.bytesSent += chunk.length;
      }, everyMs);
    });
    socket.on('data', (data) => {
      if (!answered) answer(/^HTTP\/1\.1 (\d+)/.exec(String(data))?.[1] ?? 'bytes');
      answered = true;
      stats.bytesReceived += data.length;
    });
    socket.on('error', () => {});
    socket.once('close', () => {
      clearInterval(timer);
      if (socket.connecting) return void (stats.failed++, setTimeout(one, 200));
      open--;
      if (answered) stats.refused++;
      else stats.failed++;
      one();
    });
  };
  for (let i = 0; i < count; i++) setTimeout(one, i / 10);
}

async function legacyNumericIds(subscriptions: number): Promise<void> {
  const ws = new WebSocket(`${wsBase}/hedera-testnet/v1/graphql`, 'graphql-ws', { localAddress: FROM });
  ws.on('error', () => stats.failed++);
  ws.on('close', (code) => answer(`close ${code}`));
  await new Promise((resolve) => ws.once('open', resolve));
  opened();
  const seen = new Map<string, string>();
  ws.on('message', (data: Buffer) => {
    stats.bytesReceived += data.length;
    const msg = JSON.parse(String(data)) as { type: string; id?: unknown };
    if (msg.id !== undefined && !seen.has(String(msg.id))) seen.set(String(msg.id), msg.type);
    if (msg.id === undefined) answer(msg.type);
  });
  ws.send(JSON.stringify({ type: 'connection_init', payload: { 'x-api-key': job.freeKey } }));
  const query = 'subscription{transaction(limit:1000){consensus_timestamp valid_start_ns payer_account_id charged_tx_fee index transaction_hash name result}}';
  for (let id = 1; id <= subscriptions; id++) {
    const text = JSON.stringify({ type: 'start', id, payload: { query } });
    ws.send(text);
    stats.sent++;
    stats.bytesSent += text.length;
  }
  // Every subscription's first result (or 3 s): which ids were answered with data, which refused.
  const until = Date.now() + 3_000;
  while (seen.size < subscriptions && Date.now() < until) await sleep(50);
  for (const type of seen.values()) {
    if (type === 'data') stats.accepted++;
    else stats.refused++;
    answer(type);
  }
  // From here on the client never reads: whatever the subscriptions push waits in the gateway.
  (ws as unknown as { _socket: net.Socket })._socket.pause();
}

switch (job.kind) {
  case 'none':
    break;
  case 'fragmentBomb':
    postLoop('/hedera-testnet/v1/graphql', { 'x-api-key': job.freeKey }, () => JSON.stringify({ query: fragmentBomb() }), 1);
    break;
  case 'legacyNumericIds':
    await legacyNumericIds(2_000);
    break;
  case 'mcpKeyless': {
    const batch = JSON.stringify(Array.from({ length: 100 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'tools/list', params: {} })));
    postLoop('/mcp', { accept: 'application/json, text/event-stream' }, () => batch, 32, (status, text) => status < 300 && text.includes('"tools"'));
    break;
  }
  case 'keylessSockets':
    holdSockets(`${wsBase}/hedera-testnet/v1/graphql`, 'graphql-transport-ws', 1_000);
    break;
  case 'slowBodies': {
    const size = 5 * 1024 * 1024;
    const head = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${size}\r\n\r\n`;
    // 64 KB every 100 ms: the whole body would take 8 s, longer than a run.
    trickle(60, head, Buffer.alloc(64 * 1024, ' '), 100, size);
    break;
  }
  case 'slowHeaders':
    // A byte every 2 s after a partial request line.
    trickle(3_000, 'GET /ethereum-sepolia/rp', Buffer.from('c'), 2_000);
    break;
  case 'aliasBomb': {
    // The review's 1,040 aliases once, then as many as the free plan's query size admits, over and over.
    const free = defaultPlans().free.maxGraphqlBytes!;
    let fitting = 1_040;
    while (Buffer.byteLength(JSON.stringify(aliasBomb(fitting))) > free) fitting--;
    const res = await fetch(`${job.base}/hedera-testnet/v1/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': job.freeKey }, body: JSON.stringify({ query: aliasBomb(1_040) }), dispatcher });
    const text = await res.text();
    stats.note = `1,040 aliases: ${res.status} ${/"code":"([A-Z_]+)"/.exec(text)?.[1] ?? `${text.length} bytes`}; then ${fitting} aliases (the free plan's ${free} bytes)`;
    postLoop('/hedera-testnet/v1/graphql', { 'x-api-key': job.freeKey }, () => JSON.stringify({ query: aliasBomb(fitting) }), 4);
    break;
  }
  case 'wideLogs': {
    const headers = { 'x-api-key': job.freeKey };
    let n = 0;
    const rpc = (body: string) =>
      fetch(`${job.base}/ethereum/rpc`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body, dispatcher }).then((r) => r.json() as Promise<{ result?: unknown }>);
    const bodies = async () => {
      // Every other request a filter over 2^32 blocks, read back with eth_getFilterLogs.
      if (n++ % 2 === 0) return call('eth_getLogs', [{ fromBlock: 'earliest', toBlock: 'latest' }]);
      const filter = await rpc(call('eth_newFilter', [{ fromBlock: '0x0', toBlock: '0xffffffff' }])).catch(() => ({ result: undefined }));
      return call('eth_getFilterLogs', [filter.result ?? '0x0']);
    };
    postLoop('/ethereum/rpc', headers, bodies, 4, (status, text) => status < 300 && text.includes('"result"'));
    break;
  }
}
// The socket attacks are ready once nearly all their sockets are open or answered, the others at once.
const sockets = { keylessSockets: 1_000, slowBodies: 60, slowHeaders: 3_000 }[job.kind as string] ?? 0;
const started = Date.now();
while (open + stats.refused + stats.failed < 0.9 * sockets && Date.now() - started < 5_000) await sleep(50);
process.send!('ready');
