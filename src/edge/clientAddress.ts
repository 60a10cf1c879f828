import type { IncomingMessage } from 'node:http';

/**
 * The client's address. Forwarded headers are anyone's to write, so one is read only when the operator names it
 * (`server.clientIpHeader`) because a proxy of theirs sets it; of X-Forwarded-For the right-most entry is taken, the
 * one that proxy appended.
 */
export function clientAddress(req: IncomingMessage, header: string | undefined): string {
  const fallback = req.socket.remoteAddress ?? 'unknown';
  if (!header) return fallback;
  const raw = req.headers[header];
  const value = Array.isArray(raw) ? raw.at(-1) : raw;
  const last = value?.split(',').at(-1)?.trim();
  return last || fallback;
}
