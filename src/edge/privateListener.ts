import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Config } from '../config/schema.js';
import { GatewayError } from '../errors.js';
import { writeJsonError } from './plainError.js';

/** Answers one request under its mount's prefix; a rejection is rendered as a plain JSON error. */
export type PrivateHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

interface Mount {
  prefix: string;
  handle: PrivateHandler;
  onPublic: boolean;
}

/** The private port: configured, or the public one plus one; a free port when the public port is (tests). */
export function privatePort(config: Config): number {
  if (config.private.port !== undefined) return config.private.port;
  return config.server.port === 0 ? 0 : config.server.port + 1;
}

/**
 * The operator's listener, apart from the public one: loopback by default, on its own port. Endpoints that are not for
 * API users (the admin API) mount here by path prefix. A mount may also be offered on the public listener when the
 * operator configures it; the public edge asks `publicHandler` before routing. Nothing mounted, nothing listens.
 */
export class PrivateListener {
  private readonly mounts: Mount[] = [];
  private anyOnPublic = false;
  private server?: http.Server;
  private address?: string;

  constructor(
    private readonly opts: { host: string; port: number; logger: Logger },
  ) {}

  mount(prefix: string, handle: PrivateHandler, opts: { onPublic?: boolean } = {}): void {
    this.mounts.push({ prefix, handle, onPublic: opts.onPublic ?? false });
    this.anyOnPublic ||= opts.onPublic ?? false;
  }

  /** For the public listener: serves the request when a mount the operator also put there owns its path. */
  servePublic(req: IncomingMessage, res: ServerResponse): boolean {
    // Asked of every public request: most gateways put nothing there, and then it costs no look-up.
    if (!this.anyOnPublic) return false;
    const mount = this.find(req.url ?? '/');
    if (!mount?.onPublic) return false;
    this.serve(req, res, mount);
    return true;
  }

  /** `http://host:port`, once listening; undefined when nothing is mounted. */
  get url(): string | undefined {
    return this.address;
  }

  async listen(): Promise<string | undefined> {
    if (this.mounts.length === 0) return undefined;
    const server = http.createServer({ requestTimeout: 30_000 }, (req, res) => this.serve(req, res, this.find(req.url ?? '/')));
    server.listen(this.opts.port, this.opts.host);
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
    this.server = server;
    const { port } = server.address() as AddressInfo;
    this.address = `http://${this.opts.host.includes(':') ? `[${this.opts.host}]` : this.opts.host}:${port}`;
    return this.address;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
  }

  private serve(req: IncomingMessage, res: ServerResponse, mount: Mount | undefined): void {
    const started = performance.now();
    res.once('close', () => {
      // The logger masks key-shaped strings in the path; headers (where the operator token travels) are never logged.
      this.opts.logger.info({ listener: 'private', httpMethod: req.method, path: req.url, status: res.statusCode, ms: Math.round((performance.now() - started) * 1e3) / 1e3 }, 'request');
    });
    if (!mount) {
      writeJsonError(res, new GatewayError('NOT_FOUND', `the private listener serves ${this.mounts.map((m) => m.prefix).join(', ')}`));
      return;
    }
    mount.handle(req, res).catch((err) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (!(err instanceof GatewayError)) this.opts.logger.error({ err }, 'unexpected error on the private listener');
      writeJsonError(res, err instanceof GatewayError ? err : new GatewayError('INTERNAL'));
    });
  }

  private find(url: string): Mount | undefined {
    const path = url.split('?', 1)[0];
    return this.mounts.find((m) => path === m.prefix || path.startsWith(`${m.prefix}/`));
  }
}
