import type { ServerResponse } from 'node:http';

/**
 * The headers the edge adds to an answer (request id, CORS, rate limits), as one flat name-value list. A handler that
 * writes its answer in one `writeHead` passes them with its own (`with`): a flat list given to `writeHead` on a
 * response without `setHeader` calls costs Node about half as much as a `setHeader` per header. Other handlers get them
 * set on the response before they run (`applyTo`). Names are lower case; setting a name again replaces its value, as
 * `setHeader` does.
 */
export class ResponseHeaders {
  constructor(private readonly flat: string[] = []) {}

  set(name: string, value: string): void {
    const flat = this.flat;
    for (let i = 0; i < flat.length; i += 2) {
      if (flat[i] === name) {
        flat[i + 1] = value;
        return;
      }
    }
    flat.push(name, value);
  }

  setAll(headers: Readonly<Record<string, string>>): void {
    for (const name in headers) this.set(name, headers[name]);
  }

  /** These headers and `more` (which win on a shared name), for `writeHead`. */
  with(more?: Readonly<Record<string, string | number>>): string[] {
    const merged = new ResponseHeaders(this.flat.slice());
    for (const name in more) merged.set(name, String(more[name]));
    return merged.flat;
  }

  applyTo(res: ServerResponse): void {
    for (let i = 0; i < this.flat.length; i += 2) res.setHeader(this.flat[i], this.flat[i + 1]);
  }
}
