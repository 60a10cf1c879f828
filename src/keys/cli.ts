import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { isGatewayError } from '../errors.js';
import { monthOf } from '../limits/calendar.js';
import { KEY_NETWORKS, openKeyStore, type KeyFlag, type KeyNetwork, type KeyRecord, type KeyStore } from './store.js';

const USAGE = `Usage: npm run keys -- <command>

  create --name <name> [--plan <plan>] [--network mainnet|testnet] [--email <email>]
         [--account <account id>] [--relay-beta] [--heavy-writes]
                                  create a key (and a new account unless --account); prints the key once
  list                            every key, with its status
  show <id>                       one key's details (never the key itself)
  revoke <id>                     stop a key working (within keys.cacheTtlMs on every instance)
  set-plan <id> <plan>            move a key to another plan
  usage <id> [--month YYYY-MM]    requests counted this month (or the given one) against the plan's quota

The store is the gateway's: DATABASE_URL, or the embedded store in DATA_DIR (default .data).`;

class UsageError extends Error {}

const COMMANDS = new Set(['create', 'list', 'show', 'revoke', 'set-plan', 'usage']);

const OPTIONS = {
  name: { type: 'string' },
  plan: { type: 'string' },
  network: { type: 'string' },
  email: { type: 'string' },
  account: { type: 'string' },
  month: { type: 'string' },
  'relay-beta': { type: 'boolean' },
  'heavy-writes': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

function describe(k: KeyRecord): string {
  return [
    `id:       ${k.id}`,
    `name:     ${k.name}`,
    `account:  ${k.accountId} (${k.accountName}${k.accountEmail ? `, ${k.accountEmail}` : ''})`,
    `plan:     ${k.plan}`,
    `network:  ${k.network}`,
    `flags:    ${k.flags.join(', ') || '-'}`,
    `created:  ${k.createdAt.toISOString()}`,
    `status:   ${k.revokedAt ? `revoked ${k.revokedAt.toISOString()}` : 'active'}`,
  ].join('\n');
}

function table(keys: KeyRecord[]): string {
  const rows = [['ID', 'NAME', 'ACCOUNT', 'PLAN', 'NETWORK', 'FLAGS', 'CREATED', 'STATUS']];
  for (const k of keys) {
    rows.push([k.id, k.name, k.accountName, k.plan, k.network, k.flags.join(',') || '-', k.createdAt.toISOString().slice(0, 10), k.revokedAt ? 'revoked' : 'active']);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd()).join('\n');
}

function expectArgs(positionals: string[], count: number, what: string): string[] {
  if (positionals.length !== count) throw new UsageError(`expected ${what}`);
  return positionals;
}

async function run(store: KeyStore, config: Config, command: string, args: string[], values: Values): Promise<string> {
  switch (command) {
    case 'create': {
      expectArgs(args, 0, 'no arguments besides options');
      if (!values.name) throw new UsageError('create needs --name');
      const network = values.network ?? 'mainnet';
      if (!(KEY_NETWORKS as readonly string[]).includes(network)) throw new UsageError(`--network must be mainnet or testnet, not "${network}"`);
      const flags: KeyFlag[] = [];
      if (values['relay-beta']) flags.push('relay_beta');
      if (values['heavy-writes']) flags.push('heavy_writes');
      const owner = values.account ? { accountId: values.account } : { account: { name: values.name, email: values.email } };
      const { key, record } = await store.createKey({ ...owner, name: values.name, plan: values.plan ?? 'free', network: network as KeyNetwork, flags });
      return `${describe(record)}\n\nAPI key (shown only now; the store keeps a hash):\n${key}`;
    }
    case 'list': {
      expectArgs(args, 0, 'no arguments');
      const keys = await store.list();
      return keys.length ? table(keys) : 'No keys yet. Create one with: npm run keys -- create --name <name>';
    }
    case 'show':
      return describe(await store.show(expectArgs(args, 1, 'a key id')[0]));
    case 'revoke':
      return `Revoked.\n${describe(await store.revoke(expectArgs(args, 1, 'a key id')[0]))}`;
    case 'set-plan': {
      const [id, plan] = expectArgs(args, 2, 'a key id and a plan');
      return describe(await store.setPlan(id, plan));
    }
    case 'usage': {
      const [id] = expectArgs(args, 1, 'a key id');
      const month = values.month ?? monthOf(Date.now());
      if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(month)) throw new UsageError(`--month must be YYYY-MM, not "${month}"`);
      const key = await store.show(id);
      const used = await store.usage(id, month);
      const quota = config.plans[key.plan]?.monthlyQuota;
      const share = quota ? ` (${((used / quota) * 100).toFixed(2)}%)` : '';
      return `key ${id}, ${month}: ${used} of ${quota ?? 'unknown'} requests${share}, plan ${key.plan}`;
    }
  }
  throw new UsageError(`unknown command "${command}"`);
}

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true });
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  const [command, ...args] = parsed.positionals;
  if (!command || parsed.values.help) {
    process.stdout.write(`${USAGE}\n`);
    return command || parsed.values.help ? 0 : 2;
  }
  let store: KeyStore | undefined;
  try {
    // Checked before opening the store, which takes a while and may be busy.
    if (!COMMANDS.has(command)) throw new UsageError(`unknown command "${command}"`);
    const config = loadConfig();
    store = await openKeyStore({ keys: config.keys, plans: config.plans });
    process.stdout.write(`${await run(store, config, command, args, parsed.values)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`error: ${err.message}\n\n${USAGE}\n`);
      return 2;
    }
    if (isGatewayError(err) || err instanceof ConfigError) {
      process.stderr.write(`error: ${err.message}\n`);
      return 1;
    }
    throw err;
  } finally {
    await store?.close();
  }
}

process.exitCode = await main(process.argv.slice(2));
