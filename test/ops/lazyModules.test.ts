/**
 * Resident memory: what a gateway does not use, it does not load. The ledger SDK (with gRPC), the MCP SDK, Express,
 * the Redis and Postgres clients and GraphQL's executor together held about 50 MB of an idle gateway's 150 MB.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';

const root = fileURLToPath(new URL('../../', import.meta.url));
const LOADED_ONLY_ON_USE = ['@hashgraph/sdk', '@grpc/grpc-js', '@modelcontextprotocol/sdk', 'ajv', 'express', 'ioredis', 'pg'];

describe('modules an idle gateway holds', function () {
  let run: { firstRead: number; idle: string[]; firstUse: { mcp: number; keysPage: number }; used: string[] };
  let dir: string;

  /** idleGateway.ts in a process of its own, every module it loads recorded. */
  const recorded = (args: string[] = []) => {
    const file = join(dir, `loaded-${args.join('-')}.txt`);
    writeFileSync(file, '');
    return promisify(execFile)(process.execPath, ['--import', 'tsx', '--import', './test/support/registerLoadRecorder.mjs', 'test/ops/idleGateway.ts', ...args], {
      cwd: root,
      env: { ...process.env, LOADED_MODULES_FILE: file },
    });
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lazy-modules-'));
    run = JSON.parse((await recorded()).stdout);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('after a ledger read (relay built, writes configured), none of the SDKs, Express, Redis or Postgres is loaded', () => {
    expect(run.firstRead).to.equal(200);
    expect(run.idle.filter((p) => LOADED_ONLY_ON_USE.includes(p))).to.deep.equal([]);
  });

  it('GraphQL queries are measured with the language modules only, not the executor', () => {
    expect(run.idle.filter((p) => p.startsWith('graphql/') && !p.startsWith('graphql/language/') && !p.startsWith('graphql/error/') && !p.startsWith('graphql/jsutils/'))).to.deep.equal([]);
  });

  it("ethers is loaded by the parts the relay uses (hashing, RLP, transactions, ABI), not its providers, contracts or wallets", () => {
    expect(run.idle.filter((p) => /^ethers\/lib\.\w+\/(providers|contract|wallet)\//.test(p))).to.deep.equal([]);
  });

  it('the first MCP request and the first visit to the key page load what they need and answer', () => {
    expect(run.firstUse).to.deep.equal({ mcp: 200, keysPage: 200 });
    expect(run.used).to.include.members(['@modelcontextprotocol/sdk', 'express']);
  });

  it("npm start's sandbox loads the ledger SDK, gRPC, GraphQL and the EVM when a network first needs them, not at start", async () => {
    const { idle } = JSON.parse((await recorded(['sandbox'])).stdout) as { idle: string[] };
    expect(idle.filter((p) => [...LOADED_ONLY_ON_USE, '@nomicfoundation/edr', 'graphql/index.js', 'graphql-ws'].includes(p))).to.deep.equal([]);
  });
});
