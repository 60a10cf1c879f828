import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { isGatewayError } from '../errors.js';
import { monthOf } from '../limits/calendar.js';
import { checkMonth, storeAdmin, type AccountDetail, type KeyAdmin } from './admin.js';
import { AdminApiError, httpAdmin } from './adminClient.js';
import { readAdminFile } from './adminFile.js';
import { KEY_NETWORKS, openKeyStore, type AccountSummary, type KeyFlag, type KeyNetwork, type KeyRecord } from './store.js';

const USAGE = `Usage: npm run keys -- <command>

  create --name <name> [--plan <plan>] [--network mainnet|testnet] [--email <email>]
         [--account <account id>] [--relay-beta] [--heavy-writes]
                                  create a key (and a new account unless --account); prints the key once
  list                            every key, with its status
  show <id>                       one key's details (never the key itself)
  revoke <id>                     stop a key working (within keys.cacheTtlMs on every instance)
  set-plan <id> <plan>            move a key to another plan
  usage <id> [--month YYYY-MM]    requests counted this month (or the given one) against the plan's quota
  accounts                        every account, with its number of keys
  account <account id>            one account and its keys
  revoke-account <account id>     revoke every key of an account
  set-account-plan <account id> <plan>
                                  move every key of an account to another plan

While a gateway runs on the embedded store (DATA_DIR, default .data) the CLI goes through its admin API, found in
DATA_DIR/admin.json; ADMIN_URL with ADMIN_TOKEN names another gateway's. Otherwise it opens the store itself:
DATABASE_URL, or the embedded store.`;

class UsageError extends Error {}

const COMMANDS = new Set(['create', 'list', 'show', 'revoke', 'set-plan', 'usage', 'accounts', 'account', 'revoke-account', 'set-account-plan']);

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
  return aligned(rows);
}

function aligned(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd()).join('\n');
}

function accountTable(accounts: AccountSummary[]): string {
  const rows = [['ID', 'NAME', 'EMAIL', 'KEYS', 'ACTIVE', 'CREATED']];
  for (const a of accounts) rows.push([a.id, a.name, a.email ?? '-', String(a.keys), String(a.activeKeys), a.createdAt.toISOString().slice(0, 10)]);
  return aligned(rows);
}

function describeAccount(a: AccountDetail): string {
  const head = [`id:       ${a.id}`, `name:     ${a.name}`, `email:    ${a.email ?? '-'}`, `created:  ${a.createdAt.toISOString()}`].join('\n');
  return `${head}\n\n${a.keys.length ? table(a.keys) : 'No keys.'}`;
}

function expectArgs(positionals: string[], count: number, what: string): string[] {
  if (positionals.length !== count) throw new UsageError(`expected ${what}`);
  return positionals;
}

async function run(admin: KeyAdmin, command: string, args: string[], values: Values): Promise<string> {
  switch (command) {
    case 'create': {
      expectArgs(args, 0, 'no arguments besides options');
      if (!values.name) throw new UsageError('create needs --name');
      const network = values.network ?? 'mainnet';
      if (!(KEY_NETWORKS as readonly string[]).includes(network)) throw new UsageError(`--network must be mainnet or testnet, not "${network}"`);
      const flags: KeyFlag[] = [];
      if (values['relay-beta']) flags.push('relay_beta');
      if (values['heavy-writes']) flags.push('heavy_writes');
      const { key, record } = await admin.createKey({
        name: values.name,
        plan: values.plan ?? 'free',
        network: network as KeyNetwork,
        flags,
        accountId: values.account,
        email: values.email,
      });
      return `${describe(record)}\n\nAPI key (shown only now; the store keeps a hash):\n${key}`;
    }
    case 'list': {
      expectArgs(args, 0, 'no arguments');
      const keys = await admin.listKeys();
      return keys.length ? table(keys) : 'No keys yet. Create one with: npm run keys -- create --name <name>';
    }
    case 'show':
      return describe(await admin.showKey(expectArgs(args, 1, 'a key id')[0]));
    case 'revoke':
      return `Revoked.\n${describe(await admin.revokeKey(expectArgs(args, 1, 'a key id')[0]))}`;
    case 'set-plan': {
      const [id, plan] = expectArgs(args, 2, 'a key id and a plan');
      return describe(await admin.setKeyPlan(id, plan));
    }
    case 'usage': {
      const [id] = expectArgs(args, 1, 'a key id');
      const month = values.month ?? monthOf(Date.now());
      try {
        checkMonth(month);
      } catch {
        throw new UsageError(`--month must be YYYY-MM, not "${month}"`);
      }
      const { used, quota, plan } = await admin.keyUsage(id, month);
      const share = quota ? ` (${((used / quota) * 100).toFixed(2)}%)` : '';
      return `key ${id}, ${month}: ${used} of ${quota || 'unknown'} requests${share}, plan ${plan}`;
    }
    case 'accounts': {
      expectArgs(args, 0, 'no arguments');
      const accounts = await admin.listAccounts();
      return accounts.length ? accountTable(accounts) : 'No accounts yet.';
    }
    case 'account':
      return describeAccount(await admin.showAccount(expectArgs(args, 1, 'an account id')[0]));
    case 'revoke-account':
      return `Revoked every key.\n${describeAccount(await admin.revokeAccount(expectArgs(args, 1, 'an account id')[0]))}`;
    case 'set-account-plan': {
      const [id, plan] = expectArgs(args, 2, 'an account id and a plan');
      return describeAccount(await admin.setAccountPlan(id, plan));
    }
  }
  throw new UsageError(`unknown command "${command}"`);
}

/** A running gateway's admin API when there is one to reach, else the store itself. */
async function connect(config: Config): Promise<{ admin: KeyAdmin; via?: string; close(): Promise<void> }> {
  const url = process.env.ADMIN_URL;
  if (url) {
    if (!config.admin.token) throw new UsageError('ADMIN_URL needs the operator token in ADMIN_TOKEN');
    return { admin: httpAdmin(url, config.admin.token), via: url, close: async () => {} };
  }
  const running = config.keys.databaseUrl ? undefined : await readAdminFile(config.keys.dataDir);
  if (running) return { admin: httpAdmin(running.url, running.token), via: running.url, close: async () => {} };
  const store = await openKeyStore({ keys: config.keys, plans: config.plans });
  return { admin: storeAdmin(store, config.plans), close: () => store.close() };
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
  let target: Awaited<ReturnType<typeof connect>> | undefined;
  try {
    // Checked before opening the store, which takes a while and may be busy.
    if (!COMMANDS.has(command)) throw new UsageError(`unknown command "${command}"`);
    target = await connect(loadConfig());
    if (target.via) process.stderr.write(`(through the running gateway's admin API, ${target.via})\n`);
    process.stdout.write(`${await run(target.admin, command, args, parsed.values)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`error: ${err.message}\n\n${USAGE}\n`);
      return 2;
    }
    if (isGatewayError(err) || err instanceof ConfigError || err instanceof AdminApiError) {
      process.stderr.write(`error: ${err.message}\n`);
      return 1;
    }
    throw err;
  } finally {
    await target?.close();
  }
}

process.exitCode = await main(process.argv.slice(2));
