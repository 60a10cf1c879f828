import { Counter } from 'prom-client';
import { registry } from '../metrics.js';

export const heldRefusals = new Counter({
  name: 'gateway_refusals_held_total',
  help: 'Refusals (429 for a spent budget, too many connections or waiting WebSockets from one address) held for server.refusalDelayMs before they were written',
  registers: [registry],
});

/** How close together held refusals are released: one timer per slice of time, not one per refusal. */
const SLICE_MS = 50;

/**
 * Holds refusals a flood repeats before they are written, their connections left unread meanwhile. A client that
 * retries at once when refused (the attacks' loops, a misbehaving SDK) then makes one attempt per held connection per
 * `delayMs`, instead of as many as the gateway can refuse: a refusal answered at once costs the gateway a connection's
 * accept, parse, answer and close, and the client nothing but its next connect. Holding costs the gateway an open
 * connection and a queue slot, bounded by `maxHeld`; past it refusals are answered at once, as without a tarpit.
 *
 * Every refusal waits the same time, so the queue is in due order: releasing takes one timer per slice, whatever the rate.
 */
export class Tarpit {
  private answers: Array<() => void> = [];
  private due: number[] = [];
  private head = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly delayMs: number,
    private readonly maxHeld: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get held(): number {
    return this.answers.length - this.head;
  }

  /** Runs `answer` once the delay has passed, or at once when refusals are not held or the tarpit is full. */
  hold(answer: () => void): void {
    if (this.delayMs <= 0 || this.held >= this.maxHeld) return answer();
    heldRefusals.inc();
    this.answers.push(answer);
    this.due.push(this.now() + this.delayMs);
    if (!this.timer) this.arm();
  }

  /** Writes every held refusal now (the gateway is shutting down). */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.release(Infinity);
  }

  private arm(): void {
    this.timer = setTimeout(this.tick, Math.max(0, this.due[this.head] - this.now()));
    // The listener keeps the process alive; a held refusal alone must not.
    this.timer.unref();
  }

  private readonly tick = (): void => {
    this.timer = undefined;
    this.release(this.now() + SLICE_MS);
    if (this.held > 0) this.arm();
  };

  private release(until: number): void {
    while (this.head < this.answers.length && this.due[this.head] <= until) {
      const answer = this.answers[this.head];
      this.head++;
      answer();
    }
    // The released prefix is dropped once it is most of the arrays, so each refusal is moved at most once.
    if (this.head > 1024 && this.head * 2 > this.answers.length) {
      this.answers = this.answers.slice(this.head);
      this.due = this.due.slice(this.head);
      this.head = 0;
    }
  }
}
