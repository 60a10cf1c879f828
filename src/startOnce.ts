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
