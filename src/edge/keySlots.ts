/**
 * What a key holds open (sockets, running subscriptions), in the order it was opened, against a bound its plan sets.
 * When the bound drops (a plan downgrade reaching open sockets) the holders past it are the newest, so what the key
 * opened first keeps working.
 */
export class KeySlots<T> {
  private readonly held = new Map<string, Set<T>>();

  /** Takes a slot for `holder` unless the key already holds `limit`; a holder counts once. */
  tryTake(keyId: string, holder: T, limit: number): boolean {
    let holders = this.held.get(keyId);
    if (holders?.has(holder)) return true;
    if ((holders?.size ?? 0) >= limit) return false;
    if (!holders) this.held.set(keyId, (holders = new Set()));
    holders.add(holder);
    return true;
  }

  release(keyId: string, holder: T): void {
    const holders = this.held.get(keyId);
    if (!holders?.delete(holder)) return;
    if (holders.size === 0) this.held.delete(keyId);
  }

  /** The key's holders past `limit`, newest first; none (and nothing copied) while it is within it. */
  beyond(keyId: string, limit: number): T[] {
    const holders = this.held.get(keyId);
    if (!holders || holders.size <= limit) return [];
    return [...holders].slice(limit).reverse();
  }
}
