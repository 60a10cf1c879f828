/**
 * Gateway instances as child processes (`src/main.ts`, as `npm start` runs it) on one Redis, and the HTTP upstream
 * stand-in they follow. Each instance reaches the upstream on its own path, so the stand-in tells who polls.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import yaml from 'js-yaml';
import { eventually } from '../limits/support.js';
import { onFreePort } from '../support/ports.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
export const CHAIN_ID = 11155111;
export const hashOf = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const hex = (n: number) => `0x${n.toString(16)}`;
export const LOG_ADDRESS = '0x00000000000000000000000000000000000004d2';

/**
 * An EVM node whose head the test moves (`head`), with one log per block; counts eth_blockNumber calls by the path they came on (one path
 * per gateway instance).
 */
export class Chain {
  head = 100;
  readonly polls = new Map<string, number>();
  /** Paths whose eth_blockNumber answers an error. */
  readonly failing = new Set<string>();
  /** Every JSON-RPC call, by path. */
  readonly calls = new Map<string, number>();
  private server?: http.Server;

  async listen(): Promise<string> {
    this.server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        const parsed = JSON.parse(body);
        const answers = (Array.isArray(parsed) ? parsed : [parsed]).map((call) =>
          this.failing.has(req.url!) && call.method === 'eth_blockNumber'
            ? { jsonrpc: '2.0', id: call.id, error: { code: -32603, message: 'head unavailable' } }
            : { jsonrpc: '2.0', id: call.id, result: this.answer(req.url!, call) },
        );
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(Array.isArray(parsed) ? answers : answers[0]));
      });
    });
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  pollsBy(path: string): number {
    return this.polls.get(path) ?? 0;
  }

  private answer(path: string, call: { method: string; params: any[] }): unknown {
    this.calls.set(path, (this.calls.get(path) ?? 0) + 1);
    switch (call.method) {
      case 'eth_chainId':
        return hex(CHAIN_ID);
      case 'eth_blockNumber':
        this.polls.set(path, this.pollsBy(path) + 1);
        return hex(this.head);
      case 'eth_getBlockByNumber': {
        const n = call.params[0] === 'latest' ? this.head : Number(BigInt(call.params[0]));
        if (n > this.head) return null;
        return { number: hex(n), hash: hashOf(n), parentHash: hashOf(n - 1), timestamp: hex(1_700_000_000 + n), transactions: [], uncles: [] };
      }
      case 'eth_getLogs': {
        // One log per block, so a logs subscriber sees every block's.
        const { fromBlock, toBlock } = call.params[0];
        const from = Number(BigInt(fromBlock));
        const to = Math.min(this.head, Number(BigInt(toBlock)));
        return Array.from({ length: Math.max(0, to - from + 1) }, (_, k) => ({
          address: LOG_ADDRESS,
          topics: [hashOf(from + k)],
          data: '0x',
          blockNumber: hex(from + k),
          blockHash: hashOf(from + k),
          transactionHash: hashOf(from + k + 1_000_000),
          transactionIndex: '0x0',
          logIndex: '0x0',
          removed: false,
        }));
      }
      default:
        return null;
    }
  }

  close(): void {
    this.server?.closeAllConnections();
    this.server?.close();
  }
}

export interface Instance {
  name: string;
  child: ChildProcess;
  base: string;
  key: string;
  output: () => string;
}

/** A gateway process whose upstream is `${upstream}/${name}`, sharing `redisUrl`. */
export async function startInstance(name: string, dir: string, upstream: string, redisUrl: string, live: object = { pollIntervalMs: 100, leaseMs: 1_500 }): Promise<Instance> {
  const config = join(dir, `${name}.yaml`);
  writeFileSync(
    config,
    yaml.dump({
      chains: { ethereum: { displayName: 'Ethereum', networks: { sepolia: { chainId: CHAIN_ID, upstreams: [`${upstream}/${name}`] } } } },
      limits: { redisUrl },
      live,
      // The pool's own head probes would count as polls too.
      upstreamHealth: { probeIntervalMs: 3_600_000 },
    }),
  );
  return onFreePort((port) => spawnInstance(name, config, port, dir));
}

/** Rejects when the gateway exits before it serves (its port, or PORT + 1, taken meanwhile): tried again on another. */
async function spawnInstance(name: string, config: string, port: number, dir: string): Promise<Instance> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: { PATH: process.env.PATH, LOG_LEVEL: 'info', GATEWAY_CONFIG: config, PORT: String(port), DATA_DIR: join(dir, `${name}-data`) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  await eventually(() => /Demo API key:\s+\S+/.test(output) || child.exitCode !== null, `${name} to start`, 2_400);
  const key = /Demo API key:\s+(\S+)/.exec(output)?.[1];
  if (!key) {
    child.kill('SIGKILL');
    throw new Error(`${name} did not start:\n${output}`);
  }
  return { name, child, base: `http://127.0.0.1:${port}`, key, output: () => output };
}

export async function stop(instance: Instance): Promise<void> {
  if (instance.child.exitCode !== null || instance.child.signalCode !== null) return;
  const exited = once(instance.child, 'exit');
  instance.child.kill('SIGKILL');
  await exited;
}

