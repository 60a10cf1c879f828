import { Counter } from 'prom-client';
import type { Config } from '../config/schema.js';
import { registry } from '../metrics.js';

export const heldRefusals = new Counter({
  name: 'gateway_refusals_held_total',
  help: 'Refusals (429 for a spent budget, too many connections or waiting WebSockets from one address) held before they were written (server.refusalDelayMs)',
  registers: [registry],
});

/**
 * What is refused: a request past a budget (keyless or a key's, a handshake's keyless one included), a handshake past
 * its address's waiting sockets, a connection past its address's bound.
 */
export type HeldRefusal = 'budget' | 'waitingSocket' | 'connection';

/**
 * How long each is held: a budget refusal `refusalDelayMs`; the others until retrying could succeed at the latest (a
 * waiting socket has authenticated or been closed within wsAuthTimeoutMs) or, for a connection, as long as one under
 * the bound may take to send its headers. None is held when refusalDelayMs is 0.
 */
export function tarpitOf(server: Config['server']): Tarpit {
  const on = server.refusalDelayMs > 0;
  const longer = (ms: number) => (on ? Math.max(server.refusalDelayMs, ms) : 0);
  const delays = { budget: server.refusalDelayMs, waitingSocket: longer(server.wsAuthTimeoutMs), connection: longer(server.headersTimeoutMs) };
  return new Tarpit(delays, server.maxDelayedRefusals);
}

/** How close together held refusals are released: one timer per slice of time, not one per refusal. */
const SLICE_MS = 50;

/** The refusals held for one length of time: in due order, as each waits the same time. */
interface Lane {
  answers: Array<() => void>;
  due: number[];
  head: number;
  timer?: NodeJS.Timeout;
}

/**
 * Holds refusals a flood repeats before they are written, their connections left unread meanwhile. A client that
 * retries at once when refused (the attacks' loops, a misbehaving SDK) then makes one attempt per held connection per
 * delay, instead of as many as the gateway can refuse: a refusal answered at once costs the gateway a connection's
 * accept, parse, answer and close, and the client nothing but its next connect. Holding costs the gateway an open
 * connection and a queue slot, bounded by `maxHeld`; past it refusals are answered at once, as without a tarpit.
 *
 * Each kind has its own queue, so releasing takes one timer per slice of each, whatever the rate.
 */
export class Tarpit {
  private readonly lanes = new Map<HeldRefusal, Lane>();
  private count = 0;

  constructor(
    private readonly delays: Record<HeldRefusal, number>,
    private readonly maxHeld: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get held(): number {
    return this.count;
  }

  /** Runs `answer` once the kind's delay has passed, or at once when it is 0 or the tarpit is full. */
  hold(kind: HeldRefusal, answer: () => void): void {
    const delayMs = this.delays[kind];
    if (delayMs <= 0 || this.count >= this.maxHeld) return answer();
    heldRefusals.inc();
    let lane = this.lanes.get(kind);
    if (!lane) this.lanes.set(kind, (lane = { answers: [], due: [], head: 0 }));
    lane.answers.push(answer);
    lane.due.push(this.now() + delayMs);
    this.count++;
    if (!lane.timer) this.arm(lane);
  }

  /** Writes every held refusal now (the gateway is shutting down). */
  flush(): void {
    for (const lane of this.lanes.values()) {
      clearTimeout(lane.timer);
      lane.timer = undefined;
      this.release(lane, Infinity);
    }
  }

  private arm(lane: Lane): void {
    lane.timer = setTimeout(() => {
      lane.timer = undefined;
      this.release(lane, this.now() + SLICE_MS);
      if (lane.head < lane.answers.length) this.arm(lane);
    }, Math.max(0, lane.due[lane.head] - this.now()));
    // The listener keeps the process alive; a held refusal alone must not.
    lane.timer.unref();
  }

  private release(lane: Lane, until: number): void {
    while (lane.head < lane.answers.length && lane.due[lane.head] <= until) {
      const answer = lane.answers[lane.head];
      lane.head++;
      this.count--;
      answer();
    }
    // The released prefix is dropped once it is most of the queue, so each refusal is moved at most once.
    if (lane.head > 1024 && lane.head * 2 > lane.answers.length) {
      lane.answers = lane.answers.slice(lane.head);
      lane.due = lane.due.slice(lane.head);
      lane.head = 0;
    }
  }
}
