/**
 * `npm run sandbox` as a user starts it: its entry point in a child process, with the env variables that fix each
 * listener's port, so the URLs in another tool's config stay right across restarts.
 */
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../../test/support/ports.js';

const MAIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src/main.ts');

/** Runs the entry point until it prints its ready line (resolves with the output) or exits (rejects with it). */
function startSandbox(env: Record<string, string>): { child: ChildProcess; ready: Promise<string>; exited: Promise<{ code: number | null; output: string }> } {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], { env: { ...process.env, SANDBOX_HISTORY: 'false', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  const exited = once(child, 'exit').then(([code]) => ({ code: code as number | null, output }));
  const ready = new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', () => output.includes('Ctrl-C stops it') && resolve(output));
    void exited.then(() => reject(new Error(`sandbox exited before it was ready:\n${output}`)));
  });
  // A run expected to fail is awaited through `exited` only: its `ready` rejecting must not surface as an unhandled
  // rejection in whichever test runs next.
  ready.catch(() => undefined);
  return { child, ready, exited };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exit = once(child, 'exit');
  child.kill('SIGTERM');
  await exit;
}

const connects = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.end();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

describe('npm run sandbox: fixed ports', function () {
  this.timeout(60_000);

  it('listens on the ports SANDBOX_CONSENSUS_PORT, SANDBOX_MIRROR_PORT and SANDBOX_GRAPHQL_PORT name, and prints them', async () => {
    const [consensus, mirror, graphql] = [await freePort(), await freePort(), await freePort()];
    const run = startSandbox({ SANDBOX_CONSENSUS_PORT: String(consensus), SANDBOX_MIRROR_PORT: String(mirror), SANDBOX_GRAPHQL_PORT: String(graphql) });
    try {
      const banner = await run.ready;
      expect(banner).to.include(`consensus node  127.0.0.1:${consensus} `);
      expect(banner).to.include(`mirror node     http://127.0.0.1:${mirror}/api/v1`);
      expect(banner).to.include(`GraphQL         http://127.0.0.1:${graphql}/v1/graphql`);
      expect(banner).to.include('SANDBOX_CONSENSUS_PORT, SANDBOX_MIRROR_PORT, SANDBOX_GRAPHQL_PORT');
      const blocks = await fetch(`http://127.0.0.1:${mirror}/api/v1/blocks?limit=1`);
      expect(blocks.status).to.equal(200);
      const gql = await fetch(`http://127.0.0.1:${graphql}/v1/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ __typename }' }) });
      expect(gql.status).to.equal(200);
      expect(await connects(consensus)).to.equal(true);
    } finally {
      await stop(run.child);
    }
  });

  it('takes the chain id SANDBOX_CHAIN_ID names (the local node\'s 298, which the official relay\'s suites sign for)', async () => {
    const run = startSandbox({ SANDBOX_CHAIN_ID: '298' });
    try {
      expect(await run.ready).to.include('Ledger sandbox (chain id 298)');
    } finally {
      await stop(run.child);
    }
    const bad = await startSandbox({ SANDBOX_CHAIN_ID: '0x12a' }).exited;
    expect(bad.output).to.include('Sandbox not started: env SANDBOX_CHAIN_ID must be an integer from 1 to 2147483647, got "0x12a"');
  });

  it('refuses to start, saying why, on a port that is not a number or is already taken', async () => {
    const bad = await startSandbox({ SANDBOX_MIRROR_PORT: 'eighty' }).exited;
    expect(bad.code).to.equal(1);
    expect(bad.output).to.include('Sandbox not started: env SANDBOX_MIRROR_PORT must be an integer from 1 to 65535, got "eighty"');

    const holder = net.createServer().listen(0, '127.0.0.1');
    await once(holder, 'listening');
    try {
      const { port } = holder.address() as net.AddressInfo;
      const taken = await startSandbox({ SANDBOX_GRAPHQL_PORT: String(port) }).exited;
      expect(taken.code).to.equal(1);
      expect(taken.output).to.match(/Sandbox not started: .*EADDRINUSE/);
    } finally {
      holder.close();
    }
  });
});
