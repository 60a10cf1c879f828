/**
 * An upstream stand-in in its own process, so its CPU time is not charged to the gateway it serves:
 * `constant <json>` answers every request with that body; `mirror` is the counting mirror-node stub.
 * Prints `{"url": ...}` once listening.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startMirrorStub } from './mirrorStub.js';

const [kind, body = ''] = process.argv.slice(2);
let url: string;
if (kind === 'mirror') {
  url = (await startMirrorStub()).url;
} else {
  const server = http.createServer((req, res) => {
    req.resume();
    req.once('end', () => res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body));
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}
process.stdout.write(`${JSON.stringify({ url })}\n`);
