import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError } from '../errors.js';

/**
 * DNS-rebinding protection for the MCP endpoint. A rebinding page reaches us under its own host name, so its Host
 * (and its Origin) name a domain we do not serve. Names are compared without the port, as routing does. A Host that
 * is an IP literal cannot come from a rebound name and is accepted; a request without Origin is not from a browser.
 */
export function createHostGuard(allowedHosts: string[], allowedOrigins: string[]): (headers: IncomingHttpHeaders) => void {
  const hosts = new Set(allowedHosts.map(hostnameOf));
  const origins = new Set(allowedOrigins.map(hostnameOf));
  return (headers) => {
    const host = hostnameOf(headers.host ?? '');
    if (!hosts.has(host) && !isIpLiteral(host)) throw new GatewayError('HOST_NOT_ALLOWED', `Host "${host}" is not an MCP host of this gateway`);
    const origin = headers.origin;
    if (origin === undefined) return;
    const name = hostnameOf(origin);
    if (!origins.has(name) && !hosts.has(name)) throw new GatewayError('HOST_NOT_ALLOWED', `Origin "${truncate(origin)}" is not allowed`);
  };
}

/** `https://App.Example.com:443` and `app.example.com:8080` both give `app.example.com`; `null` or garbage gives ''. */
function hostnameOf(value: string): string {
  const text = value.trim().toLowerCase();
  const withScheme = text.includes('://') ? text : `http://${text}`;
  try {
    return new URL(withScheme).hostname;
  } catch {
    return '';
  }
}

function isIpLiteral(host: string): boolean {
  return host.startsWith('[') || /^\d{1,3}(\.\d{1,3}){3}$/.test(host);
}

function truncate(text: string): string {
  return text.length > 100 ? `${text.slice(0, 100)}...` : text;
}
