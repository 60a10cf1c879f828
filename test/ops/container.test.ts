import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import yaml from 'js-yaml';
import { loadConfig } from '../../src/config/load.js';
import { isKnownEnvVar } from '../../scripts/config-reference.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(root + path, 'utf8');

interface Instruction {
  op: string;
  args: string;
}

/** Dockerfile instructions with line continuations joined and comments dropped. */
function parseDockerfile(text: string): Instruction[] {
  const joined = text.replace(/\\\r?\n/g, ' ');
  return joined
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const [op, ...rest] = l.split(/\s+/);
      return { op: op.toUpperCase(), args: rest.join(' ') };
    });
}

/** `ENV A=1 B=2` and the legacy `ENV A 1` form. */
function envNames(args: string): string[] {
  return args.includes('=') ? [...args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=/g)].map((m) => m[1]) : [args.split(/\s+/)[0]];
}

/** Compose's `${VAR:-default}` interpolation, with nothing set in the environment. */
function interpolate(value: string): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}/g, (_, _name, fallback) => fallback ?? '');
}

type Service = { build?: unknown; image?: string; environment?: Record<string, string> | string[]; volumes?: string[]; depends_on?: Record<string, unknown>; ports?: string[] };

function environmentOf(service: Service): Record<string, string> {
  const env = service.environment ?? {};
  if (Array.isArray(env)) return Object.fromEntries(env.map((e) => [e.split('=')[0], interpolate(e.slice(e.indexOf('=') + 1))]));
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, interpolate(String(v))]));
}

describe('container: Dockerfile', () => {
  const instructions = parseDockerfile(read('Dockerfile'));
  const stages = instructions.filter((i) => i.op === 'FROM');
  const finalStage = instructions.slice(instructions.lastIndexOf(stages[stages.length - 1]));

  it('builds in several stages, never runs install scripts, and ships production dependencies only', () => {
    expect(stages.length).to.be.at.least(2);
    const installs = instructions.filter((i) => i.op === 'RUN' && /\bnpm (ci|install)\b/.test(i.args));
    expect(installs).to.have.length.greaterThan(0);
    for (const i of installs) expect(i.args).to.match(/--ignore-scripts/);
    // The compile stage may hold dev dependencies (the compiler); the node_modules the runtime copies must not.
    const copied = finalStage.find((i) => i.op === 'COPY' && /node_modules/.test(i.args));
    const from = /--from=(\S+)/.exec(copied?.args ?? '')?.[1];
    expect(from, 'the runtime copies node_modules from a stage').to.be.a('string');
    const stageStart = instructions.findIndex((i) => i.op === 'FROM' && new RegExp(`\\bAS ${from}$`, 'i').test(i.args));
    const stageEnd = instructions.findIndex((i, n) => n > stageStart && i.op === 'FROM');
    const stageInstalls = instructions.slice(stageStart, stageEnd).filter((i) => installs.includes(i));
    expect(stageInstalls).to.have.length.greaterThan(0);
    for (const i of stageInstalls) expect(i.args).to.match(/--omit=dev/);
  });

  it('runs as a non-root user with a HEALTHCHECK on /healthz', () => {
    const users = finalStage.filter((i) => i.op === 'USER');
    expect(users, 'USER in the final stage').to.have.length.greaterThan(0);
    expect(users[users.length - 1].args).to.not.match(/^(root|0)(:|$)/);
    const health = finalStage.filter((i) => i.op === 'HEALTHCHECK');
    expect(health).to.have.length(1);
    expect(health[0].args).to.include('/healthz');
  });

  it('sets only env vars the gateway reads, and exposes the port it listens on', () => {
    const env = finalStage.filter((i) => i.op === 'ENV').flatMap((i) => envNames(i.args));
    expect(env).to.include.members(['HOST', 'PORT']);
    for (const name of env) expect(isKnownEnvVar(name), `ENV ${name}`).to.equal(true);
    const port = /PORT=(\d+)/.exec(finalStage.filter((i) => i.op === 'ENV').map((i) => i.args).join(' '))?.[1];
    expect(finalStage.filter((i) => i.op === 'EXPOSE').map((i) => i.args)).to.include(port);
  });

  it('leaves tests, local data and secrets out of the build context', () => {
    const ignored = read('.dockerignore').split(/\r?\n/).map((l) => l.trim());
    expect(ignored).to.include.members(['node_modules', '.data', '.git', 'test', '.env']);
  });
});

describe('container: compose.yaml', () => {
  const compose = yaml.load(read('compose.yaml')) as { services: Record<string, Service> };
  const gateways = Object.entries(compose.services).filter(([, s]) => s.build !== undefined);

  it('runs two gateway instances, Redis and Postgres', () => {
    expect(gateways.map(([name]) => name)).to.have.length(2);
    const images = Object.values(compose.services).map((s) => s.image ?? '');
    expect(images.some((i) => i.startsWith('redis'))).to.equal(true);
    expect(images.some((i) => i.startsWith('postgres'))).to.equal(true);
  });

  it('sets only env vars the config schema knows on the gateways', () => {
    for (const [name, service] of gateways) {
      for (const variable of Object.keys(environmentOf(service))) expect(isKnownEnvVar(variable), `${name}: ${variable}`).to.equal(true);
    }
  });

  it('points both instances at the same Postgres key store and the same Redis budget', () => {
    const envs = gateways.map(([, s]) => environmentOf(s));
    const serviceNames = Object.keys(compose.services);
    for (const variable of ['DATABASE_URL', 'REDIS_URL']) {
      const values = new Set(envs.map((e) => e[variable]));
      expect(values.size, `${variable} is the same on both`).to.equal(1);
      const host = new URL([...values][0]).hostname;
      expect(serviceNames, `${variable} names a compose service`).to.include(host);
    }
    expect(new URL(envs[0].DATABASE_URL).protocol).to.equal('postgres:');
    expect(new URL(envs[0].REDIS_URL).protocol).to.equal('redis:');
  });

  it('mounts a config file the gateway accepts with that environment', () => {
    for (const [name, service] of gateways) {
      const env = environmentOf(service);
      const mount = (service.volumes ?? []).map((v) => v.split(':')).find(([, target]) => target === env.GATEWAY_CONFIG);
      expect(mount, `${name} mounts GATEWAY_CONFIG`).to.not.equal(undefined);
      const config = loadConfig({ file: root + mount![0].replace(/^\.\//, ''), env });
      expect(config.keys.databaseUrl).to.equal(env.DATABASE_URL);
      expect(config.limits.redisUrl).to.equal(env.REDIS_URL);
      expect(config.server.host).to.equal('0.0.0.0');
      expect(config.sandbox.enabled).to.equal(false);
    }
  });
});
