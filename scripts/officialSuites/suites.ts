/**
 * The official relay's acceptance suites by name: `rpc_batch2` is tests/server/acceptance/rpc_batch2.spec.ts,
 * `ws:validations` is tests/ws-server/acceptance/validations.spec.ts.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

export interface Suite {
  name: string;
  kind: 'server' | 'ws';
  /** The spec file, relative to the relay's checkout. */
  file: string;
}

export function resolveSuite(name: string, relayDir: string): Suite {
  const ws = name.startsWith('ws:');
  const base = ws ? name.slice(3) : name;
  const file = path.join('tests', ws ? 'ws-server' : 'server', 'acceptance', `${base}.spec.ts`);
  if (!/^[A-Za-z0-9_]+$/.test(base) || base === 'index' || !existsSync(path.join(relayDir, file))) {
    throw new Error(`no suite "${name}": expected ${file} in ${relayDir} (server suites by file name, WebSocket suites as ws:<name>)`);
  }
  return { name, kind: ws ? 'ws' : 'server', file };
}

/** The conformity batch reads the Ethereum execution-apis vectors from node_modules/execution-apis. */
export const needsExecutionApis = (suite: Suite) => suite.name === 'conformityTests';

/** Suites that post to http://127.0.0.1:7546/ (the official relay's port) whatever E2E_RELAY_HOST says. */
export const postsToRelayPort = (suite: Suite) => suite.name === 'conformityTests' || suite.name === 'jsonRpcCompliance';
