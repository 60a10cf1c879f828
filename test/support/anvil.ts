/** anvil, a real EVM node not written here, started on a free port with its funded development accounts read back. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onFreePort } from './ports.js';

export const ANVIL_CHAIN_ID = 31337;

export interface Anvil {
  url: string;
  child: ChildProcess;
  /** Private keys of its funded development accounts, as it writes them with --config-out. */
  keys: string[];
}

/** `extraArgs`: more anvil flags, such as --no-mining. */
export function startAnvil(binary: string, extraArgs: string[] = []): Promise<Anvil> {
  return onFreePort(async (port) => {
    const accounts = join(mkdtempSync(join(tmpdir(), 'anvil-')), 'accounts.json');
    const args = ['--port', String(port), '--host', '127.0.0.1', '--chain-id', String(ANVIL_CHAIN_ID), '--silent', '--config-out', accounts, ...extraArgs];
    const child = spawn(binary, args, { stdio: 'ignore' });
    let exited = false;
    // It exits at once when the port is taken.
    child.once('exit', () => (exited = true));
    const url = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 200 && !exited; i++) {
      try {
        const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}' });
        if (res.ok) return { url, child, keys: (JSON.parse(readFileSync(accounts, 'utf8')) as { private_keys: string[] }).private_keys };
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    child.kill();
    throw new Error(`anvil did not start on port ${port}`);
  });
}
