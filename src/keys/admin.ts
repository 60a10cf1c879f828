import type { Config } from '../config/schema.js';
import { GatewayError } from '../errors.js';
import { KEY_FLAGS, KEY_NETWORKS, type AccountRecord, type AccountSummary, type KeyFlag, type KeyNetwork, type KeyRecord, type KeyStore } from './store.js';

export interface KeyUsage {
  keyId: string;
  plan: string;
  /** `YYYY-MM`, UTC. */
  month: string;
  used: number;
  quota: number;
}

export interface AccountDetail extends AccountRecord {
  keys: KeyRecord[];
}

export interface AccountUsage {
  accountId: string;
  month: string;
  used: number;
  keys: KeyUsage[];
}

export interface NewKeyRequest {
  name: string;
  plan?: string;
  network?: KeyNetwork;
  /** Add the key to this account; without it a new account named after the key is created. */
  accountId?: string;
  email?: string;
  flags?: KeyFlag[];
}

/**
 * What an operator can do to keys and accounts. The admin API serves it from the gateway's own store; the keys CLI
 * uses it through that API while a gateway runs, or on the store directly when none does. Both see the same checks.
 */
export interface KeyAdmin {
  listKeys(): Promise<KeyRecord[]>;
  /** The only answer that carries a key: shown once, the store keeps its hash. */
  createKey(request: NewKeyRequest): Promise<{ key: string; record: KeyRecord }>;
  showKey(id: string): Promise<KeyRecord>;
  revokeKey(id: string): Promise<KeyRecord>;
  setKeyPlan(id: string, plan: string): Promise<KeyRecord>;
  /** The key's own hbar budget per window in tinybar, or null to return it to its plan's. */
  setKeyHbarLimit(id: string, tinybar: number | null): Promise<KeyRecord>;
  keyUsage(id: string, month: string): Promise<KeyUsage>;
  listAccounts(): Promise<AccountSummary[]>;
  createAccount(account: { name: string; email?: string }): Promise<AccountRecord>;
  showAccount(id: string): Promise<AccountDetail>;
  revokeAccount(id: string): Promise<AccountDetail>;
  setAccountPlan(id: string, plan: string): Promise<AccountDetail>;
  accountUsage(id: string, month: string): Promise<AccountUsage>;
}

const MAX_NAME = 100;
const MAX_EMAIL = 254;
const ID = /^(key|acc)_[0-9a-f]{12}$/;

/** Ids are short and of one shape; a key (or anything else) where an id belongs is refused without echoing it. */
export function checkId(id: string, kind: 'key' | 'acc'): string {
  if (ID.test(id) && id.startsWith(kind)) return id;
  if (id.startsWith('pk_')) throw new GatewayError('ADMIN_KEY_NOT_ID');
  throw new GatewayError(kind === 'key' ? 'KEY_NOT_FOUND' : 'ACCOUNT_NOT_FOUND', 'ids look like key_0123456789ab or acc_0123456789ab');
}

export function checkMonth(month: string): string {
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(month)) throw new GatewayError('BAD_REQUEST', 'month must be YYYY-MM');
  return month;
}

function checkName(name: unknown, what: string): string {
  const trimmed = typeof name === 'string' ? name.trim() : '';
  if (!trimmed || trimmed.length > MAX_NAME) throw new GatewayError('BAD_REQUEST', `${what} must be 1 to ${MAX_NAME} characters`);
  return trimmed;
}

function checkEmail(email: unknown): string | undefined {
  if (email === undefined || email === null || email === '') return undefined;
  if (typeof email !== 'string' || email.length > MAX_EMAIL || !/^[^\s@]+@[^\s@]+$/.test(email)) throw new GatewayError('BAD_REQUEST', 'email is not a valid address');
  return email;
}

/**
 * The operations on the store itself. `changed` hears of keys revoked or re-planned, so the gateway serving this API
 * applies the change at once rather than after its key cache bound (other instances still take up to that bound).
 */
export function storeAdmin(store: KeyStore, plans: Config['plans'], changed: (keyIds: string[]) => void = () => {}): KeyAdmin {
  const quotaOf = (plan: string) => plans[plan]?.monthlyQuota ?? 0;
  const keyUsage = async (key: KeyRecord, month: string): Promise<KeyUsage> => ({
    keyId: key.id,
    plan: key.plan,
    month,
    used: await store.usage(key.id, month),
    quota: quotaOf(key.plan),
  });
  const detail = async (id: string, keys?: KeyRecord[]): Promise<AccountDetail> => ({ ...(await store.showAccount(id)), keys: keys ?? (await store.accountKeys(id)) });
  const told = <T extends KeyRecord | KeyRecord[]>(result: T): T => {
    changed(Array.isArray(result) ? result.map((k) => k.id) : [result.id]);
    return result;
  };

  return {
    listKeys: () => store.list(),
    async createKey(request) {
      const name = checkName(request.name, 'name');
      const network = request.network ?? 'mainnet';
      if (!KEY_NETWORKS.includes(network)) throw new GatewayError('BAD_REQUEST', `network must be ${KEY_NETWORKS.join(' or ')}`);
      const flags = request.flags ?? [];
      const unknown = flags.filter((f) => !KEY_FLAGS.includes(f));
      if (unknown.length) throw new GatewayError('BAD_REQUEST', `flags are ${KEY_FLAGS.join(', ')}`);
      const owner = request.accountId ? { accountId: checkId(request.accountId, 'acc') } : { account: { name, email: checkEmail(request.email) } };
      return store.createKey({ ...owner, name, plan: request.plan ?? 'free', network, flags });
    },
    showKey: (id) => store.show(checkId(id, 'key')),
    revokeKey: async (id) => told(await store.revoke(checkId(id, 'key'))),
    setKeyPlan: async (id, plan) => told(await store.setPlan(checkId(id, 'key'), plan)),
    async setKeyHbarLimit(id, tinybar) {
      if (tinybar !== null && !(Number.isSafeInteger(tinybar) && tinybar > 0)) throw new GatewayError('BAD_REQUEST', 'tinybar must be a positive integer, or null for the plan\'s budget');
      return told(await store.setHbarLimit(checkId(id, 'key'), tinybar));
    },
    async keyUsage(id, month) {
      return keyUsage(await store.show(checkId(id, 'key')), checkMonth(month));
    },
    listAccounts: () => store.listAccounts(),
    createAccount: (account) => store.createAccount({ name: checkName(account.name, 'name'), email: checkEmail(account.email) }),
    showAccount: (id) => detail(checkId(id, 'acc')),
    async revokeAccount(id) {
      return detail(id, told(await store.revokeAccount(checkId(id, 'acc'))));
    },
    async setAccountPlan(id, plan) {
      return detail(id, told(await store.setAccountPlan(checkId(id, 'acc'), plan)));
    },
    async accountUsage(id, month) {
      checkMonth(month);
      const keys = await Promise.all((await store.accountKeys(checkId(id, 'acc'))).map((k) => keyUsage(k, month)));
      return { accountId: id, month, used: keys.reduce((sum, k) => sum + k.used, 0), keys };
    },
  };
}
