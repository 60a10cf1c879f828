import { ADMIN_PREFIX } from './adminApi.js';
import type { AccountDetail, KeyAdmin } from './admin.js';
import type { AccountRecord, KeyRecord } from './store.js';

/** An error answer of the admin API, carrying its message (which never contains a key). */
export class AdminApiError extends Error {
  override name = 'AdminApiError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

type Dated = { createdAt: Date | string; revokedAt?: Date | string | null };

/** JSON carries dates as ISO strings; the CLI formats Dates. */
function revive<T extends Dated>(record: T): T {
  return { ...record, createdAt: new Date(record.createdAt), ...(record.revokedAt !== undefined ? { revokedAt: record.revokedAt && new Date(record.revokedAt) } : {}) };
}

const reviveAccount = (a: AccountDetail): AccountDetail => ({ ...revive(a), keys: a.keys.map(revive) });

/** The admin API of a running gateway as a KeyAdmin: what the keys CLI uses while the gateway holds the store. */
export function httpAdmin(baseUrl: string, token: string): KeyAdmin {
  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    let res: Response;
    try {
      res = await fetch(`${baseUrl}${ADMIN_PREFIX}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
      throw new AdminApiError(0, `the gateway's admin API at ${baseUrl} did not answer (${cause})`);
    }
    const text = await res.text();
    if (!res.ok) {
      let message = text;
      try {
        message = (JSON.parse(text) as { error: { message: string } }).error.message;
      } catch {
        // not the API's JSON error: keep the text
      }
      throw new AdminApiError(res.status, message);
    }
    return JSON.parse(text) as T;
  }
  const id = encodeURIComponent;
  const month = (m: string) => `?month=${encodeURIComponent(m)}`;
  return {
    listKeys: async () => (await call<{ keys: KeyRecord[] }>('GET', '/keys')).keys.map(revive),
    createKey: async (request) => {
      const created = await call<{ key: string; record: KeyRecord }>('POST', '/keys', request);
      return { key: created.key, record: revive(created.record) };
    },
    showKey: async (keyId) => revive(await call<KeyRecord>('GET', `/keys/${id(keyId)}`)),
    revokeKey: async (keyId) => revive(await call<KeyRecord>('POST', `/keys/${id(keyId)}/revoke`)),
    setKeyPlan: async (keyId, plan) => revive(await call<KeyRecord>('PUT', `/keys/${id(keyId)}/plan`, { plan })),
    setKeyHbarLimit: async (keyId, tinybar) => revive(await call<KeyRecord>('PUT', `/keys/${id(keyId)}/hbar-limit`, { tinybar })),
    keyUsage: (keyId, m) => call('GET', `/keys/${id(keyId)}/usage${month(m)}`),
    listAccounts: async () => (await call<{ accounts: Array<AccountRecord & { keys: number; activeKeys: number }> }>('GET', '/accounts')).accounts.map(revive),
    createAccount: async (account) => revive(await call<AccountRecord>('POST', '/accounts', account)),
    showAccount: async (accountId) => reviveAccount(await call<AccountDetail>('GET', `/accounts/${id(accountId)}`)),
    revokeAccount: async (accountId) => reviveAccount(await call<AccountDetail>('POST', `/accounts/${id(accountId)}/revoke`)),
    setAccountPlan: async (accountId, plan) => reviveAccount(await call<AccountDetail>('PUT', `/accounts/${id(accountId)}/plan`, { plan })),
    accountUsage: (accountId, m) => call('GET', `/accounts/${id(accountId)}/usage${month(m)}`),
  };
}
