import type { EventEmitter } from 'node:events';

/**
 * A Hasura-style live query: yields the current result, then the result again whenever one of `events` fires and the
 * result changed. Written as an explicit iterator so `return()` detaches at once, even while waiting for an event.
 */
export function liveQuery<T>(emitter: EventEmitter, events: string[], compute: () => T): AsyncIterableIterator<T> {
  let last: string | undefined;
  let dirty = true;
  let waiting: ((r: IteratorResult<T>) => void) | undefined;
  let done = false;

  const fingerprint = (v: T) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x));
  const poll = (): IteratorResult<T> | undefined => {
    if (!dirty) return undefined;
    dirty = false;
    const value = compute();
    const print = fingerprint(value);
    if (print === last) return undefined;
    last = print;
    return { value, done: false };
  };
  const onEvent = () => {
    dirty = true;
    if (!waiting) return;
    const result = poll();
    if (result) {
      const resolve = waiting;
      waiting = undefined;
      resolve(result);
    }
  };
  for (const e of events) emitter.on(e, onEvent);
  const finish = (): IteratorResult<T> => {
    done = true;
    for (const e of events) emitter.off(e, onEvent);
    waiting?.({ value: undefined, done: true });
    waiting = undefined;
    return { value: undefined, done: true };
  };

  return {
    next: () => {
      if (done) return Promise.resolve({ value: undefined, done: true });
      return Promise.resolve(poll() ?? new Promise<IteratorResult<T>>((resolve) => (waiting = resolve)));
    },
    return: () => Promise.resolve(finish()),
    throw: (err) => {
      finish();
      return Promise.reject(err);
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
