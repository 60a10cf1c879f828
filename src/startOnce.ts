/** Concurrent first uses share one start; a failed start is forgotten so the next use tries again. */
export function startOnce<T>(started: Map<string, Promise<T>>, id: string, start: () => Promise<T>): Promise<T> {
  let p = started.get(id);
  if (!p) {
    p = start();
    p.catch(() => started.delete(id));
    started.set(id, p);
  }
  return p;
}

/** One thing started on first use, as `startOnce` starts each of many (a module loaded on demand, say). */
export interface OnFirstUse<T> {
  get(): Promise<T>;
  /** The start in progress or done, without starting one. */
  started(): Promise<T> | undefined;
}

export function onFirstUse<T>(start: () => Promise<T>): OnFirstUse<T> {
  const started = new Map<string, Promise<T>>();
  return { get: () => startOnce(started, '', start), started: () => started.get('') };
}
