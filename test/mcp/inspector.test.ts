import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { expect } from 'chai';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { needTool, TOOLS } from '../support/services.js';

const require = createRequire(import.meta.url);
const INSPECTOR = require.resolve('@modelcontextprotocol/inspector/cli/build/cli.js');


function inspector(node: string, args: string[]): Promise<any> {
  return new Promise((resolve, reject) => {
    // The CLI starts a child `node` for the actual client, so Node 22 goes first on PATH too.
    const env = { ...process.env, PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH}` };
    execFile(node, [INSPECTOR, '--cli', ...args], { env, timeout: 120_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`inspector failed: ${err.message}\n${stderr}`));
      else resolve(JSON.parse(stdout));
    });
  });
}

describe('MCP endpoint with the MCP Inspector CLI', () => {
  let t: TestGateway;
  // Each run starts two Node processes; the three run side by side and the tests check their answers.
  let listed: any;
  let link: any;
  let balance: any;

  before(async function () {
    // About 1.5 s of CPU per run; on a busy machine the wall time is many times that.
    this.timeout(150_000);
    const node = needTool(this, TOOLS.node22);
    t = await startTestGateway();
    const anonymous = `${t.gw.url}/mcp`;
    // The Inspector CLI sends no headers, so the key goes in the path.
    const keyed = `${t.gw.url}/v1/${t.key}/mcp`;
    [listed, link, balance] = await Promise.all([
      inspector(node, [anonymous, '--method', 'tools/list']),
      inspector(node, [anonymous, '--method', 'tools/call', '--tool-name', 'get_api_key_link', '--tool-arg', 'name=My app', 'network=mainnet']),
      inspector(node, [
        keyed,
        '--method', 'tools/call',
        '--tool-name', 'rpc_call',
        '--tool-arg', 'chain=ethereum', 'network=sepolia', 'method=eth_getBalance', 'params=["0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266","latest"]',
      ]),
    ]);
  });
  after(() => t?.close());

  it('lists the tools', () => {
    expect(listed.tools.map((tool: { name: string }) => tool.name)).to.include.members(['get_api_key_link', 'list_chains', 'rpc_call', 'ledger_rest_get', 'ledger_graphql']);
  });

  it('calls get_api_key_link without a key', () => {
    expect(link.structuredContent.url).to.equal(`${t.gw.urls.app}/keys/new?name=My%20app&network=mainnet`);
  });

  it('calls rpc_call with JSON params, with the key in the path', () => {
    expect(balance.isError).to.not.equal(true);
    expect(BigInt(balance.structuredContent.result) > 0n, 'balance above zero').to.equal(true);
  });
});
