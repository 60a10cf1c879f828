/**
 * What `npm run sandbox` reads from its environment. Every listener takes a fixed port from its own variable, so a
 * tool's config can name the sandbox across restarts; without one it listens on a free port chosen at start.
 */
type Env = Record<string, string | undefined>;

/** The env variable that fixes each listener's port, in the order the banner lists them. */
export const SANDBOX_PORT_ENV = {
  consensus: 'SANDBOX_CONSENSUS_PORT',
  mirror: 'SANDBOX_MIRROR_PORT',
  graphql: 'SANDBOX_GRAPHQL_PORT',
} as const;

export type SandboxPorts = Partial<Record<keyof typeof SANDBOX_PORT_ENV, number>>;

export interface SandboxCliSettings {
  blockIntervalMs?: number;
  /** The ledger's EVM chain id; the testnet's (296) when unset. The network allows up to Java's Integer.MAX_VALUE. */
  chainId?: number;
  host: string;
  history: boolean;
  ports: SandboxPorts;
}

function integer(env: Env, name: string, min: number, max: number): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) throw new Error(`env ${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  return value;
}

export function sandboxCliSettings(env: Env): SandboxCliSettings {
  const ports: SandboxPorts = {};
  for (const [listener, name] of Object.entries(SANDBOX_PORT_ENV) as Array<[keyof SandboxPorts, string]>) {
    const port = integer(env, name, 1, 65_535);
    if (port !== undefined) ports[listener] = port;
  }
  const taken = new Map<number, string>();
  for (const [listener, port] of Object.entries(ports) as Array<[keyof SandboxPorts, number]>) {
    const other = taken.get(port);
    if (other) throw new Error(`env ${other} and ${SANDBOX_PORT_ENV[listener]} both name port ${port}`);
    taken.set(port, SANDBOX_PORT_ENV[listener]);
  }
  return {
    blockIntervalMs: integer(env, 'SANDBOX_BLOCK_INTERVAL_MS', 0, 2 ** 31 - 1),
    chainId: integer(env, 'SANDBOX_CHAIN_ID', 1, 2 ** 31 - 1),
    host: env.SANDBOX_HOST || '127.0.0.1',
    // As in the gateway's config: on unless SANDBOX_HISTORY=false.
    history: !/^(0|false|no|off)$/i.test(env.SANDBOX_HISTORY ?? ''),
    ports,
  };
}
