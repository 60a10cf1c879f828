/**
 * HTTP statuses of JSON-RPC errors: 200 by default (ethers v6 hides the code of any non-2xx answer), and the official
 * hiero relay's mapping on the ledger relay with `relay.httpErrorMapping: official` (its httpErrorMapper,
 * EthereumRPCConformityService and batch handling).
 */
import { expect } from 'chai';
import { JsonRpcProvider } from 'ethers';
import { createPublicClient, http } from 'viem';
import { defaultPlans } from '../../src/config/catalogue.js';
import { rpc, startTestGateway, type TestGateway } from '../support/gateway.js';

const call = (method: string, params: unknown[] = [], id: unknown = 1) => ({ jsonrpc: '2.0', id, method, params });
/** A creation call whose init code reverts at once (PUSH1 0 PUSH1 0 REVERT). */
const REVERTING_CALL = call('eth_call', [{ data: '0x60006000fd' }, 'latest']);

const BAD_ADDRESS: [string, unknown[]] = ['eth_getBalance', ['0xzz', 'latest']];

/** What ethers v6 and viem make of a params error: the error each throws, reduced to what a caller can read. */
async function clientErrors(url: string) {
  const ethers = new JsonRpcProvider(url, 296, { staticNetwork: true });
  const viem = createPublicClient({ transport: http(url, { retryCount: 0 }) });
  const out: Record<string, unknown> = {};
  try {
    await ethers.send(...BAD_ADDRESS);
  } catch (e: any) {
    out.ethers = { code: e.code, rpcCode: e.error?.code, inResponseBody: JSON.parse(e.info?.responseBody ?? 'null')?.error?.code };
  } finally {
    ethers.destroy();
  }
  try {
    await viem.request({ method: BAD_ADDRESS[0] as 'eth_getBalance', params: BAD_ADDRESS[1] as never });
  } catch (e: any) {
    out.viem = { name: e.name, code: e.code };
  }
  return out;
}

async function statuses(t: TestGateway, path: string, bodies: Record<string, unknown>) {
  const url = `${t.gw.url}/${path}/v1/${t.key}/rpc`;
  const out: Record<string, [number, number | undefined]> = {};
  for (const [name, body] of Object.entries(bodies)) {
    const { status, json } = await rpc(url, body);
    out[name] = [status, Array.isArray(json) ? undefined : json?.error?.code];
  }
  return out;
}

const LEDGER_CASES = {
  result: call('eth_blockNumber'),
  badParams: call('eth_getBalance', [42, true]),
  unknownMethod: call('eth_doesNotExist'),
  parseError: '{"jsonrpc":"2.0",',
  invalidRequest: { id: 1 },
  revert: REVERTING_CALL,
  batchWithErrors: [call('eth_doesNotExist'), call('eth_getBalance', [42, true], 2)],
};

describe('HTTP status of JSON-RPC errors', function () {
  describe('by default', () => {
    let t: TestGateway;
    before(async () => (t = await startTestGateway()));
    after(() => t?.close());

    it('answers 200 for every JSON-RPC error on the ledger relay', async () => {
      expect(await statuses(t, 'hedera-testnet', LEDGER_CASES)).to.deep.equal({
        result: [200, undefined],
        badParams: [200, -32602],
        unknownMethod: [200, -32601],
        parseError: [200, -32700],
        invalidRequest: [200, -32600],
        revert: [200, 3],
        batchWithErrors: [200, undefined],
      });
    });

    it('ethers v6 and viem both show the JSON-RPC code of an error answered 200', async () => {
      expect(await clientErrors(`${t.gw.url}/hedera-testnet/v1/${t.key}/rpc`)).to.deep.equal({
        ethers: { code: 'UNKNOWN_ERROR', rpcCode: -32602, inResponseBody: undefined },
        viem: { name: 'InvalidParamsRpcError', code: -32602 },
      });
    });
  });

  describe('with relay.httpErrorMapping official', () => {
    let t: TestGateway;
    // Keys hold at most two filters, so the third is refused for a limit.
    const plans = defaultPlans();
    before(async () => (t = await startTestGateway({ relay: { httpErrorMapping: 'official' }, plans: { ...plans, enterprise: { ...plans.enterprise, maxFilters: 2 } } })));
    after(() => t?.close());

    it('answers as the official relay does on the ledger relay: 400 for request, params and method errors, 200 for reverts and batches', async () => {
      expect(await statuses(t, 'hedera-testnet', LEDGER_CASES)).to.deep.equal({
        result: [200, undefined],
        badParams: [400, -32602],
        unknownMethod: [400, -32601],
        parseError: [400, -32700],
        invalidRequest: [400, -32600],
        revert: [200, 3],
        batchWithErrors: [200, undefined],
      });
    });

    // docs/relay-differences.md (HTTP statuses and clients): what each client makes of a 400.
    it('viem still shows the JSON-RPC code of a 400; ethers v6 throws SERVER_ERROR, the code only in the response body text', async () => {
      expect(await clientErrors(`${t.gw.url}/hedera-testnet/v1/${t.key}/rpc`)).to.deep.equal({
        ethers: { code: 'SERVER_ERROR', rpcCode: undefined, inResponseBody: -32602 },
        viem: { name: 'InvalidParamsRpcError', code: -32602 },
      });
    });

    it('answers 429 for a limit', async () => {
      const url = `${t.gw.url}/hedera-testnet/v1/${t.key}/rpc`;
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await rpc(url, call('eth_newBlockFilter')));
      expect(answers.map((a) => [a.status, a.json.error?.code])).to.deep.equal([[200, undefined], [200, undefined], [429, -32005]]);
    });

    it('answers 400 with a JSON-RPC error for a body over the limit, as the official relay does, and keeps 413 on EVM networks', async () => {
      const big = JSON.stringify(call('eth_getLogs', [{ address: Array.from({ length: 150_000 }, (_, i) => `0x${i.toString(16).padStart(40, '0')}`) }]));
      const ledger = await rpc(`${t.gw.url}/hedera-testnet/v1/${t.key}/rpc`, big);
      expect([ledger.status, ledger.json.error?.code]).to.deep.equal([400, -32600]);
      const evm = await rpc(`${t.gw.url}/ethereum-sepolia/v1/${t.key}/rpc`, big);
      expect([evm.status, evm.json.error?.code]).to.deep.equal([413, -32600]);
    });

    it('keeps 200 for errors on EVM networks', async () => {
      const out = await statuses(t, 'ethereum-sepolia', { unknownMethod: call('eth_doesNotExist'), badParams: call('eth_getBalance', [42, true]) });
      expect(Object.values(out).map(([status]) => status)).to.deep.equal([200, 200]);
    });
  });

  describe('with relay.onValidRequestErrorStatus 200 (ON_VALID_JSON_RPC_HTTP_RESPONSE_STATUS_CODE=200)', () => {
    let t: TestGateway;
    before(async () => (t = await startTestGateway({ relay: { httpErrorMapping: 'official', onValidRequestErrorStatus: 200 } })));
    after(() => t?.close());

    it('answers 200 for errors to well-formed requests, 400 for malformed ones', async () => {
      expect(await statuses(t, 'hedera-testnet', LEDGER_CASES)).to.deep.equal({
        result: [200, undefined],
        badParams: [200, -32602],
        unknownMethod: [200, -32601],
        parseError: [400, -32700],
        invalidRequest: [400, -32600],
        revert: [200, 3],
        batchWithErrors: [200, undefined],
      });
    });
  });
});
