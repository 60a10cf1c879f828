/**
 * The official Hedera JSON-RPC relay as the relay benchmark's baseline, when a build of it sits beside the project
 * (`../official-relay`, or `OFFICIAL_RELAY_DIR`; see `../shared/differential/README.md` for how to build it). None of
 * its code is part of this project: the bench only starts its `dist/index.js` against the bench's mirror stub.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { stopChild } from './stopChild.js';

export interface OfficialRelay {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** The build's directory, or undefined with the place looked in when there is none. */
export function officialRelayDir(repo: string): { dir?: string; lookedIn: string } {
  const lookedIn = resolve(process.env.OFFICIAL_RELAY_DIR ?? join(repo, '..', 'official-relay'));
  return { dir: existsSync(join(lookedIn, 'dist', 'index.js')) ? lookedIn : undefined, lookedIn };
}

const freePort = () =>
  new Promise<number>((done, fail) => {
    const server = createServer().once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => done(port));
    });
  });

/**
 * Starts the official relay on `mirrorUrl` (an origin answering `/health/readiness` and the operator's account) and
 * resolves once it answers eth_chainId. It logs at info as JSON to /dev/null, as the gateway does in the bench: a
 * log line's cost is measured, not the terminal's. Its rate limits are off, as the gateway's budget is for the bench key.
 */
export async function startOfficialRelay(dir: string, mirrorUrl: string, chainId: string): Promise<OfficialRelay> {
  const port = await freePort();
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    npm_package_version: '0.80.0-SNAPSHOT',
    CHAIN_ID: chainId,
    // Nothing in the production mix submits a transaction, so the consensus node is never dialled.
    HEDERA_NETWORK: '{"127.0.0.1:1":"0.0.3"}',
    MIRROR_NODE_URL: mirrorUrl,
    MIRROR_NODE_URL_WEB3: mirrorUrl,
    OPERATOR_ID_MAIN: '0.0.1002',
    OPERATOR_KEY_MAIN: `0x${randomBytes(32).toString('hex')}`,
    OPERATOR_KEY_FORMAT: 'HEX_ECDSA',
    RATE_LIMIT_DISABLED: 'true',
    LOG_LEVEL: 'info',
    PRETTY_LOGS_ENABLED: 'false',
    SERVER_HOST: '127.0.0.1',
    SERVER_PORT: String(port),
  };
  const proc = spawn(process.execPath, ['dist/index.js'], { cwd: dir, env, stdio: ['ignore', 'ignore', 'ignore'] });
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<never>((_, fail) => proc.once('exit', (code) => fail(new Error(`the official relay in ${dir} exited with ${code} before it was ready`))));
  const ready = (async () => {
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 250))) {
      try {
        const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}' });
        if ((await res.text()).includes(chainId)) return;
      } catch {
        // not listening yet
      }
    }
    throw new Error(`the official relay in ${dir} did not answer within 60 s`);
  })();
  try {
    await Promise.race([ready, exited]);
  } catch (err) {
    proc.kill('SIGTERM');
    throw err;
  }
  exited.catch(() => undefined);
  return {
    url,
    pid: proc.pid!,
    stop: stopChild(proc),
  };
}
