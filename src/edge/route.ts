import type { ChainConfig, Config, NetworkApi, NetworkConfig } from '../config/schema.js';
import { GatewayError } from '../errors.js';
import { normalisePath } from './paths.js';
import { closestNetworks, nameable } from './suggest.js';

/** What the edge serves; network APIs plus the hosts that are not a network, and the key owner's usage. */
export type ApiKind = NetworkApi | 'mcp' | 'keys' | 'ops' | 'usage';

/** The operations paths, answered at the root of the public and the private listener. */
export const OPS_PATHS = ['/healthz', '/readyz', '/metrics'];

export interface NetworkRef {
  chainName: string;
  networkName: string;
  /** `ethereum`, `ethereum-sepolia`, `hedera-testnet`. */
  id: string;
  chain: ChainConfig;
  network: NetworkConfig;
}

export interface Route {
  api: ApiKind;
  /** The API's own path: `/rpc`, `/v1/graphql`, `/api/v1/accounts?x=1` (query kept). */
  apiPath: string;
  /** What the client put before the API path, key segment redacted: `/hedera-testnet/v1/<key>` becomes `/hedera-testnet/v1/***`. */
  publicPrefix: string;
  network?: NetworkRef;
  /** The key from `/v1/<key>/...`, if the client used path auth. */
  pathKey?: string;
  /** The path had a dot segment in some spelling: the edge refuses it in the API's convention before anything else. */
  unsafePath?: true;
}

/** The key owner's usage, on every host but MCP's: `/usage` with the key in a header, or `/v1/<key>/usage`. */
const USAGE_PATH = '/usage';
/** The usage page on the app host, served by the same API as `/usage`. */
const USAGE_PAGE_PATH = '/keys/usage';

/** Pre-computed lookup tables from the config: host label to network, legacy host to network. */
export class Router {
  private readonly byLabel = new Map<string, NetworkRef>();
  private readonly legacy = new Map<string, NetworkRef>();
  private readonly domain: string;

  constructor(config: Config) {
    this.domain = config.server.serviceDomain.toLowerCase();
    for (const [chainName, chain] of Object.entries(config.chains)) {
      for (const [networkName, network] of Object.entries(chain.networks)) {
        const id = networkName === 'mainnet' ? chainName : `${chainName}-${networkName}`;
        const ref = { chainName, networkName, id, chain, network };
        this.byLabel.set(id, ref);
        if (chain.kind === 'ledger' && (networkName === 'mainnet' || networkName === 'testnet')) {
          for (const suffix of config.server.legacyDomains) this.legacy.set(`${networkName}.${chainName}.api.${suffix.toLowerCase()}`, ref);
        }
      }
    }
  }

  networks(): NetworkRef[] {
    return [...this.byLabel.values()];
  }

  network(id: string): NetworkRef | undefined {
    return this.byLabel.get(id);
  }

  /** What a new user is pointed at (banner, 404 hints): the ledger testnet and Sepolia when served, else the first network of each kind. */
  examples(): { ledger?: NetworkRef; evm?: NetworkRef } {
    const all = this.networks();
    return {
      ledger: this.byLabel.get('hedera-testnet') ?? all.find((n) => n.chain.kind === 'ledger'),
      evm: this.byLabel.get('ethereum-sepolia') ?? all.find((n) => n.chain.kind === 'evm'),
    };
  }

  /**
   * The API whose conventions the refusal of a URL no route takes should follow: a path ending in `/rpc` is a JSON-RPC
   * client's, whatever network it names, so it gets an error that client can read.
   */
  apiNamedBy(url: string): ApiKind | undefined {
    const q = url.indexOf('?');
    const { path } = normalisePath(q < 0 ? url : url.slice(0, q));
    return /\/rpc\/?$/.test(path) ? 'rpc' : undefined;
  }

  /**
   * Resolves Host and URL to a route, or throws a 404 GatewayError that says what exists. The path is normalised
   * first (see paths.ts); one with a dot segment routes to its API marked unsafe, or is refused with 400 when it
   * reaches none.
   */
  resolve(hostHeader: string | undefined, url: string): Route {
    const q = url.indexOf('?');
    const { path, unsafe } = normalisePath(q < 0 ? url : url.slice(0, q));
    const query = q < 0 ? '' : url.slice(q);
    if (!unsafe) return this.route(hostHeader, path, query);
    let route: Route;
    try {
      route = this.route(hostHeader, path, query);
    } catch {
      throw new GatewayError('PATH_REFUSED');
    }
    return { ...route, unsafePath: true };
  }

  private route(hostHeader: string | undefined, path: string, query: string): Route {
    const host = stripPort(hostHeader ?? '').toLowerCase();
    if (OPS_PATHS.includes(path)) return { api: 'ops', apiPath: path, publicPrefix: '' };

    const legacy = this.legacy.get(host);
    if (legacy) return this.onNetwork(legacy, path, query, '');
    if (host === this.domain || isIpLiteral(host) || host === '') return this.onBareDomain(path, query);
    if (!host.endsWith(`.${this.domain}`)) throw new GatewayError('UNKNOWN_HOST', `"${host}" is not served here`);
    const label = host.slice(0, -this.domain.length - 1);
    if (label === 'mcp') return this.onService('mcp', path, query, '');
    if (label === 'app') return this.onService('keys', path, query, '');
    const network = this.byLabel.get(label);
    if (!network) throw new GatewayError('UNKNOWN_HOST', `${this.unknownNetwork(label)}; use {chain}[-{network}].${this.domain}`);
    return this.onNetwork(network, path, query, '');
  }

  private onBareDomain(path: string, query: string): Route {
    if (path === '/mcp' || path.startsWith('/v1/') && path.endsWith('/mcp')) return this.onService('mcp', path, query, '');
    if (path.startsWith('/keys/') || isUsage(splitPathKey(path).apiPath)) return this.onService('keys', path, query, '');
    const second = path.indexOf('/', 1);
    const first = path.slice(1, second < 0 ? undefined : second);
    const network = this.byLabel.get(first);
    if (!network) {
      const { ledger, evm } = this.examples();
      const hint = `start the path with a network such as ${[ledger, evm].flatMap((n) => (n ? [`/${n.id}/rpc`] : [])).join(' or ')}`;
      throw new GatewayError('NOT_FOUND', nameable(first) ? `${this.unknownNetwork(first)}; ${hint}` : `on the bare domain, ${hint}`);
    }
    return this.onNetwork(network, second < 0 ? '/' : path.slice(second), query, `/${first}`);
  }

  /** `no network "etherium-sepolia"; did you mean ethereum-sepolia?` */
  private unknownNetwork(segment: string): string {
    if (!nameable(segment)) return 'no such chain or network';
    const close = closestNetworks(segment.toLowerCase(), [...this.byLabel.keys()]);
    const meant = close.length > 0 ? `; did you mean ${close.join(', ')}? (mainnet has no suffix)` : '';
    return `no network "${segment}"${meant}`;
  }

  private onService(api: 'mcp' | 'keys', path: string, query: string, prefix: string): Route {
    const { apiPath, pathKey, keyPrefix } = splitPathKey(path);
    if (api === 'keys' && isUsage(apiPath)) return { api: 'usage', apiPath: USAGE_PATH + query, publicPrefix: prefix + keyPrefix, pathKey };
    if (api === 'keys' && (apiPath === USAGE_PAGE_PATH || apiPath === `${USAGE_PAGE_PATH}/`)) {
      return { api: 'usage', apiPath: USAGE_PAGE_PATH + query, publicPrefix: prefix + keyPrefix, pathKey };
    }
    const expected = api === 'mcp' ? apiPath === '/mcp' : apiPath.startsWith('/keys/');
    if (!expected) throw new GatewayError('NOT_FOUND', `${path} is not served on this host`);
    return { api, apiPath: apiPath + query, publicPrefix: prefix + keyPrefix, pathKey };
  }

  private onNetwork(network: NetworkRef, path: string, query: string, prefix: string): Route {
    const { apiPath, pathKey, keyPrefix } = splitPathKey(path);
    if (isUsage(apiPath)) return { api: 'usage', apiPath: USAGE_PATH + query, publicPrefix: prefix + keyPrefix, network, pathKey };
    const api = apiFor(apiPath);
    if (!api) throw new GatewayError('NOT_FOUND', `${redactPath(path)} is not an API path; use /rpc${offered(network).includes('rest') ? ', /api/v1/..., /v1/graphql' : ''}`);
    if (!network.network.apis.includes(api)) {
      throw new GatewayError('API_NOT_OFFERED', `${network.id} offers ${offered(network).join(', ')}`);
    }
    return { api, apiPath: apiPath + query, publicPrefix: prefix + keyPrefix, network, pathKey };
  }
}

function isUsage(apiPath: string): boolean {
  return apiPath === USAGE_PATH || apiPath === `${USAGE_PATH}/`;
}

function offered(network: NetworkRef): string[] {
  return network.network.apis;
}

/** The API a path selects; a trailing slash, which some tools add to a base URL, is accepted on the fixed paths. */
function apiFor(path: string): NetworkApi | undefined {
  if (path.startsWith('/api/v1/')) return 'rest';
  switch (path.endsWith('/') ? path.slice(0, -1) : path) {
    case '/rpc':
      return 'rpc';
    case '/v1/graphql':
      return 'graphql';
    case '/beta/graphql':
      return 'beta-graphql';
    default:
      return undefined;
  }
}

/** `/v1/<key>/rpc` -> `/rpc`; `/v1/<key>/graphql` -> `/v1/graphql`; `/v1/graphql` itself is not a key. */
function splitPathKey(path: string): { apiPath: string; pathKey?: string; keyPrefix: string } {
  if (!path.startsWith('/v1/') || path === '/v1/graphql' || path === '/v1/graphql/') return { apiPath: path, keyPrefix: '' };
  const end = path.indexOf('/', 4);
  const key = decodeURIComponentSafe(path.slice(4, end < 0 ? undefined : end));
  const rest = end < 0 ? '/' : path.slice(end);
  const apiPath = rest === '/graphql' || rest === '/graphql/' ? '/v1/graphql' : rest;
  return { apiPath, pathKey: key || undefined, keyPrefix: '/v1/***' };
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * Replaces the key segment of a path-auth URL so it can be logged or echoed. Path auth puts `/v1/<key>` first, or
 * right after the bare domain's network segment; a later `/v1/` (as in `/api/v1/accounts`) is the API's own path.
 */
export function redactPath(url: string): string {
  if (!url.includes('/v1/')) return url;
  return url.replace(/^((?:\/(?!api\/)[^/?]+)?\/v1\/)(?!graphql(?:[/?]|$))[^/?]+/, '$1***');
}

function stripPort(host: string): string {
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    return end < 0 ? host : host.slice(0, end + 1);
  }
  const colon = host.indexOf(':');
  return colon < 0 ? host : host.slice(0, colon);
}

function isIpLiteral(host: string): boolean {
  return host.startsWith('[') || /^\d{1,3}(\.\d{1,3}){3}$/.test(host);
}
