/**
 * 127.0.0.1:7546, the official relay's port, which the conformity batch and the JSON-RPC compliance suite post to
 * whatever E2E_RELAY_HOST says. The runner points it at the relay under test: requests to `/` go to that relay's
 * JSON-RPC URL (the key's path on our gateway), anything else to the same path on its origin. Status, headers and
 * body pass through unchanged, for both relays alike.
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** 7546 unless OFFICIAL_SUITES_PORT says otherwise, for a second run beside one on 7546 (of suites that take E2E_RELAY_HOST). */
export const FRONT_DOOR_PORT = Number(process.env.OFFICIAL_SUITES_PORT ?? 7546);
export const FRONT_DOOR_URL = `http://127.0.0.1:${FRONT_DOOR_PORT}`;

export interface FrontDoor {
  /** Sends what arrives from now on to `rpcUrl`. */
  pointAt(rpcUrl: string): void;
  close(): Promise<void>;
}

export async function openFrontDoor(): Promise<FrontDoor> {
  let target: URL | undefined;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (!target) {
      res.writeHead(503).end('no relay under test');
      return;
    }
    const path = req.url === '/' || req.url === '' ? target.pathname : req.url!;
    const upstream = request(
      { host: target.hostname, port: target.port, method: req.method, path, headers: { ...req.headers, host: target.host } },
      (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      },
    );
    // A relay that resets the connection (as ours does on a body over its limit while the client is still sending)
    // resets the client's too: the suite sees what it would see without the front door.
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'EADDRINUSE' ? new Error(`port ${FRONT_DOOR_PORT} is taken: the suites post to it, so it must be free while they run`) : err),
    );
    server.listen(FRONT_DOOR_PORT, '127.0.0.1', () => resolve());
  });
  return {
    pointAt(rpcUrl) {
      target = new URL(rpcUrl);
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
