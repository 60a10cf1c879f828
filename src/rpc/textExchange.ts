import type { Dispatcher } from 'undici';

export interface TextAnswer {
  status: number;
  text: string;
  /** The Retry-After header of a 429 or 503, as sent. */
  retryAfter?: string;
}

/** An exchange in flight: its answer, whether it had headers back when it failed, and a way to give it up. */
export interface Exchange {
  answer: Promise<TextAnswer>;
  /** Set once the response's status line and headers arrived: a failure after that cut the body off. */
  readonly started: boolean;
  /** Gives the exchange up (queued or in flight); `answer` then rejects with `reason`. */
  abort(reason: Error): void;
}

/**
 * A bare dispatch handler that collects the answer as text. `request()` costs per call an AsyncResource, an
 * AbortSignal and its listener, and a body stream; under the forwarding bench those (createAbortSignal,
 * addAbortListener, readable.js consumeEnd) took several percent of the gateway's time.
 */
class TextHandler implements Dispatcher.DispatchHandler, Exchange {
  readonly answer: Promise<TextAnswer>;
  started = false;
  private status = 0;
  private retryAfter?: string;
  private chunks: Buffer[] = [];
  private length = 0;
  private controller?: Dispatcher.DispatchController;
  private abortReason?: Error;
  private done = false;
  private resolve!: (answer: TextAnswer) => void;
  private reject!: (err: Error) => void;

  constructor() {
    this.answer = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.abortReason) controller.abort(this.abortReason);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    // 1xx informational answers come before the real one.
    if (statusCode < 200) return;
    this.status = statusCode;
    const retryAfter = headers['retry-after'];
    if (retryAfter !== undefined) this.retryAfter = String(retryAfter);
    this.started = true;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.chunks.push(chunk);
    this.length += chunk.length;
  }

  onResponseEnd(): void {
    this.done = true;
    const body = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.length);
    // A byte order mark is skipped, as undici's body.text() does.
    const start = body.length > 2 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0;
    this.resolve({ status: this.status, text: body.toString('utf8', start), retryAfter: this.retryAfter });
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    this.done = true;
    this.reject(err);
  }

  abort(reason: Error): void {
    if (this.done) return;
    if (this.controller) this.controller.abort(reason);
    else this.abortReason = reason;
  }
}

/**
 * Sends a GET, or a POST of `body`, through `dispatcher`; headers as a flat list of names and values, prepared once per
 * upstream. The EVM upstream pool and the ledger's mirror client both exchange text this way.
 */
export function exchangeText(dispatcher: Dispatcher, opts: { method: 'GET' | 'POST'; path: string; headers: string[]; body?: string; timeoutMs: number }): Exchange {
  const handler = new TextHandler();
  dispatcher.dispatch({ method: opts.method, path: opts.path, headers: opts.headers, body: opts.body, headersTimeout: opts.timeoutMs, bodyTimeout: opts.timeoutMs }, handler);
  return handler;
}
