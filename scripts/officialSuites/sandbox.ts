/** `npm run sandbox`, started as a user would, and what its banner says: consensus node, mirror node, operator. */
import path from 'node:path';
import { start, type Started } from './processes.js';

export interface SandboxInfo {
  /** `host:port` of the consensus node. */
  consensus: string;
  /** The mirror node's origin, without /api/v1. */
  mirrorOrigin: string;
  /** The relay's operator, an ordinary account that pays fees. */
  operatorId: string;
  operatorKey: string;
  /** The fee-exempt treasury 0.0.2: the acceptance runner's OPERATOR_ID_MAIN, as on the local node. */
  superuserId: string;
  superuserKey: string;
  chainId: number;
  /** The prefunded accounts, in banner order. */
  accounts: Array<{ address: string; accountId: string; privateKey: string }>;
}

/** Reads the banner of `npm run sandbox` (packages/sandbox/src/banner.ts). */
export function parseBanner(text: string): SandboxInfo {
  const field = (re: RegExp, what: string) => {
    const m = re.exec(text);
    if (!m) throw new Error(`the sandbox's banner has no ${what}`);
    return m[1];
  };
  const accounts = [...text.matchAll(/Account #\d+: (0x[0-9a-fA-F]{40}) \((\d+\.\d+\.\d+),[^\n]*\nPrivate Key: (0x[0-9a-fA-F]{64})/g)].map((m) => ({
    address: m[1],
    accountId: m[2],
    privateKey: m[3],
  }));
  return {
    chainId: Number(field(/chain id (\d+)/, 'chain id')),
    consensus: field(/consensus node\s+(\S+)/, 'consensus node'),
    mirrorOrigin: field(/mirror node\s+(\S+?)\/api\/v1/, 'mirror node'),
    operatorId: field(/account id\s+(\S+)/, 'operator account'),
    operatorKey: field(/private key\s+([0-9a-fA-F]+)/, 'operator key'),
    superuserId: field(/Superuser[^\n]*\n\s+account id\s+(\S+)/, 'superuser account'),
    superuserKey: field(/Superuser[^\n]*\n\s+account id[^\n]*\n\s+private key\s+([0-9a-fA-F]+)/, 'superuser key'),
    accounts,
  };
}

/** `chainId`: the suites' (their env's CHAIN_ID): the conformity vectors hold transactions signed for it. */
export async function startSandbox(repo: string, logDir: string, chainId: number): Promise<{ info: SandboxInfo; process: Started }> {
  const env = { ...process.env, SANDBOX_HOST: '127.0.0.1', SANDBOX_CHAIN_ID: String(chainId) };
  const proc = start('npm', ['run', 'sandbox'], { cwd: repo, env, logFile: path.join(logDir, 'sandbox.log') });
  try {
    const m = await proc.waitFor(/Ledger sandbox[\s\S]*?Started in[^\n]*\n/, 300_000);
    return { info: parseBanner(m[0]), process: proc };
  } catch (err) {
    await proc.stop();
    throw err;
  }
}
