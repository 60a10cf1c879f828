import { readFileSync } from 'node:fs';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import yaml from 'js-yaml';
import type { TestGateway } from '../support/gateway.js';
import { startOpsGateway } from './support.js';

/**
 * The OpenAPI document against what the running gateway serves, both ways. The served surface is measured, not
 * listed: path literals are read from the router and from the handler modules app.ts wires in, every one the router
 * accepts is probed with every HTTP method (and a WebSocket upgrade) on every kind of host, and whatever does not
 * answer 404 or 405 is a served route.
 */

const root = fileURLToPath(new URL('../../', import.meta.url));
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;
const UPGRADE = 'GET+upgrade';
type Probe = (typeof METHODS)[number] | typeof UPGRADE;
const PROBE_KEY = 'pk_test_routeprobe0000';
const DOMAIN = 'localhost';

type PathItem = Record<string, any> & { 'x-gateway-api': string; 'x-trailing-slash'?: boolean; servers?: Array<{ url: string }> };
const doc = yaml.load(readFileSync(`${root}openapi/gateway.yaml`, 'utf8')) as { servers: Array<{ url: string }>; paths: Record<string, PathItem> };

/** Handler modules: the `create...Handler|Proxy|Page` factories app.ts imports, plus the router. */
function routingSources(): string[] {
  const app = readFileSync(`${root}src/app.ts`, 'utf8');
  const files = ['src/edge/route.ts'];
  for (const m of app.matchAll(/import \{([^}]*)\} from '\.\/([^']+)\.js'/g)) {
    if (/\bcreate\w*(Handler|Proxy|Page)\b/.test(m[1])) files.push(`src/${m[2]}.ts`);
  }
  return files;
}

function pathLiterals(): string[] {
  const found = new Set<string>();
  for (const file of routingSources()) {
    for (const m of readFileSync(root + file, 'utf8').matchAll(/'(\/[A-Za-z0-9_./-]*)'/g)) found.add(m[1]);
  }
  return [...found];
}

interface Answer {
  status: number;
}

function probe(port: number, host: string, path: string, method: Probe): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const upgrade = method === UPGRADE;
    const headers: Record<string, string> = { host };
    if (upgrade) {
      Object.assign(headers, {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
        'sec-websocket-protocol': 'graphql-transport-ws',
      });
    }
    const req = http.request({ host: '127.0.0.1', port, path, method: upgrade ? 'GET' : method, headers, agent: false });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 101 });
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
    });
    req.on('error', reject);
    req.end();
  });
}

const served = (a: Answer) => a.status !== 404 && a.status !== 405;

/**
 * `/v1/{apiKey}/api/v1/{mirrorPath}` -> a regex; `{mirrorPath}` is the rest of the path, other parameters one segment,
 * and `x-trailing-slash` paths take an optional trailing slash.
 */
function templateRegex(template: string, item: PathItem): RegExp {
  const pattern = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_, name) => (name === 'mirrorPath' ? '.*' : '[^/]+'));
  return new RegExp(`^${pattern}${item['x-trailing-slash'] ? '/?' : ''}$`);
}

function documentedProbes(item: PathItem): Probe[] {
  const probes: Probe[] = [];
  for (const m of METHODS) {
    const op = item[m.toLowerCase()];
    if (!op) continue;
    const upgrades = (op.parameters ?? []).some((p: { name: string; in: string }) => p.in === 'header' && p.name.toLowerCase() === 'upgrade');
    probes.push(upgrades ? UPGRADE : m);
  }
  return probes;
}

describe('OpenAPI document and served routes', function () {
  let t: TestGateway;
  /** Hosts of every kind: one network host per distinct set of APIs, the bare domain, the MCP and app hosts. */
  let hosts: string[];
  let networkFor: (api: string) => string | undefined;

  before(async function () {
    t = await startOpsGateway();
    const networks = t.gw.router.networks();
    const byApis = new Map<string, string>();
    for (const n of networks) if (!byApis.has(n.network.apis.join())) byApis.set(n.network.apis.join(), n.id);
    hosts = [...[...byApis.values()].map((id) => `${id}.${DOMAIN}`), DOMAIN, `mcp.${DOMAIN}`, `app.${DOMAIN}`];
    // An API that is not a network's own (usage) is served on every network: any one will do.
    networkFor = (api) => (networks.find((n) => (n.network.apis as string[]).includes(api)) ?? networks[0])?.id;
  });

  after(() => t?.close());

  /** Where a documented path is served: its own servers, else the document's (network host and network prefix). */
  function locations(item: PathItem): Array<{ host: string; prefix: string }> {
    const network = networkFor(item['x-gateway-api']) ?? '';
    return (item.servers ?? doc.servers).map(({ url }) => {
      const u = new URL(url.replace('{scheme}', 'http').replace('{host}', DOMAIN).replace('{domain}', DOMAIN).replace('{network}', network));
      return { host: u.host, prefix: u.pathname.replace(/\/$/, '') };
    });
  }

  function instantiate(template: string): string {
    return template.replace('{apiKey}', PROBE_KEY).replace('{mirrorPath}', 'blocks');
  }

  it('serves every documented operation, on every server the document names for it', async () => {
    const missing: string[] = [];
    for (const [template, item] of Object.entries(doc.paths)) {
      for (const { host, prefix } of locations(item)) {
        const path = prefix + instantiate(template);
        for (const variant of item['x-trailing-slash'] ? [path, `${path}/`] : [path]) {
          for (const method of documentedProbes(item)) {
            const answer = await probe(t.gw.port, host, variant, method);
            if (!served(answer)) missing.push(`${method} ${host}${variant} -> ${answer.status}`);
          }
          expect(t.gw.router.resolve(host, variant).api, `${host}${variant}`).to.equal(item['x-gateway-api']);
        }
      }
    }
    expect(missing).to.deep.equal([]);
  });

  it('documents every route the gateway serves, with its methods', async () => {
    const literals = pathLiterals();
    expect(literals, 'path literals found in the routing sources').to.include.members(['/rpc', '/metrics']);
    const undocumented: string[] = [];
    let servedCount = 0;
    for (const host of hosts) {
      for (const literal of literals) {
        const variants = literal.endsWith('/') ? [literal] : [literal, `${literal}/`];
        for (const path of variants.flatMap((v) => [v, `/v1/${PROBE_KEY}${v}`])) {
          let api: string;
          try {
            api = t.gw.router.resolve(host, path).api;
          } catch {
            continue; // the router answers 404 before any handler runs
          }
          const template = Object.keys(doc.paths).find((p) => templateRegex(p, doc.paths[p]).test(path) && doc.paths[p]['x-gateway-api'] === api);
          const documented = template ? documentedProbes(doc.paths[template]) : [];
          for (const method of [...METHODS, UPGRADE] as Probe[]) {
            if (!served(await probe(t.gw.port, host, path, method))) continue;
            servedCount++;
            if (!documented.includes(method)) undocumented.push(`${method} ${host}${path} (${api})`);
          }
        }
      }
    }
    expect(servedCount).to.be.greaterThan(10);
    expect(undocumented).to.deep.equal([]);
  });
});
