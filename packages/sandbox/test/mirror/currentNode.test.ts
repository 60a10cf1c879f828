/**
 * The mirror-node stand-in against the current real node (v0.160): the `hbar` parameter, the contract-result fields
 * of its view models, and its rules for combining filters. Each rule names where the real node states it
 * (hiero-ledger/hiero-mirror-node, rest/ and rest-java/, and the OpenAPI document in test/reference/mirror-node/).
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import yaml from 'js-yaml';
import { longZeroAddress } from '../../src/ledger/ids.js';
import { buildFixture, type Fixture } from './fixture.js';

const word = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

/** The keys of a `/contracts/results` entry in the real node's spec test contracts/results/no-params.json (v0.160). */
const LISTED_KEYS = [
  'access_list', 'address', 'amount', 'authorization_list', 'block_gas_used', 'block_hash', 'block_number', 'bloom', 'call_result', 'chain_id',
  'contract_id', 'created_contract_ids', 'error_message', 'failed_initcode', 'from', 'function_parameters', 'gas_consumed', 'gas_limit',
  'gas_price', 'gas_used', 'hash', 'max_fee_per_gas', 'max_priority_fee_per_gas', 'nonce', 'r', 'result', 's', 'status', 'timestamp', 'to',
  'transaction_index', 'type', 'v',
];
/** contractResultViewModel.js: what `/contracts/{id}/results` lists. */
const BY_CONTRACT_KEYS = [
  'address', 'amount', 'bloom', 'call_result', 'contract_id', 'created_contract_ids', 'error_message', 'from', 'function_parameters',
  'gas_consumed', 'gas_limit', 'gas_used', 'hash', 'timestamp', 'to',
];

describe('sandbox mirror node: as the current real node answers', function () {
  let f: Fixture;
  before(async () => {
    f = await buildFixture();
  });
  after(() => f?.close());

  const message = (res: { body: any }) => res.body._status.messages[0].message;

  describe('hbar (contractController.js, utils.parseHbarParam)', () => {
    it('answers monetary fields in tinybar by default and in weibar with hbar=false, on every contract result endpoint', async () => {
      const single = `/api/v1/contracts/results/${f.increments[0].ethHash}`;
      const tinybar = (await f.call(single)).body;
      // 710 gwei = 71 tinybar; the priority fee is zero.
      expect([tinybar.max_fee_per_gas, tinybar.max_priority_fee_per_gas, tinybar.gas_price]).to.deep.equal(['0x47', '0x0', '0x']);
      for (const hbar of ['false', 'FALSE']) {
        const weibar = (await f.call(`${single}?hbar=${hbar}`)).body;
        expect([weibar.max_fee_per_gas, weibar.max_priority_fee_per_gas, weibar.gas_price]).to.deep.equal(['0xa54f4c3c00', '0x0', '0x']);
      }
      expect((await f.call(`${single}?hbar=true`)).body.max_fee_per_gas).to.equal('0x47');

      const byTimestamp = `/api/v1/contracts/${f.contract.id}/results/${f.increments[0].consensusTimestamp}`;
      expect((await f.call(`${byTimestamp}?hbar=false`)).body.max_fee_per_gas).to.equal('0xa54f4c3c00');

      // 5 HBAR: 500,000,000 tinybar, or 5 * 10^18 weibar written with every digit (beyond 2^53).
      const listing = `/api/v1/contracts/results?block.number=${f.blocks.deploy.number}`;
      const transfer = (await f.call(listing)).body.results.find((r: any) => r.hash === f.transfer.ethHash);
      expect(transfer.amount).to.equal(500_000_000);
      expect(await f.text(`${listing}&hbar=false`)).to.contain('"amount":5000000000000000000,');
    });

    it('keeps amount in tinybar on /contracts/{id}/results, which lists no Ethereum transaction fields', async () => {
      const { body } = await f.call(`/api/v1/contracts/${f.contract.id}/results?hbar=false&limit=1`);
      expect(Object.keys(body.results[0]).sort()).to.deep.equal(BY_CONTRACT_KEYS);
      // Sender and contract by their long-zero addresses (contractResultViewModel.js: EntityId.toEvmAddress).
      const [newest] = body.results;
      expect(newest.hash).to.equal(f.increments[2].ethHash);
      expect(newest.from).to.equal(longZeroAddress(f.chain.account(f.bob.address.toLowerCase())!.num));
      expect(newest.to).to.equal(longZeroAddress(f.chain.account(f.contract.id)!.num));
    });

    it('refuses a repeated, operator-prefixed or non-boolean hbar, and hbar where the node does not take it', async () => {
      const path = `/api/v1/contracts/results/${f.increments[0].ethHash}`;
      const repeated = await f.call(`${path}?hbar=true&hbar=false`);
      expect([repeated.status, message(repeated)]).to.deep.equal([400, "Invalid hbar parameter value: true,false. Must be 'true' or 'false'"]);
      expect(message(await f.call(`${path}?hbar=eq:false`))).to.equal("Invalid hbar parameter value: eq:false. Must be 'true' or 'false'");
      expect(message(await f.call(`${path}?hbar=gt:true`))).to.equal('Invalid parameter: hbar');
      expect(message(await f.call('/api/v1/contracts/results?hbar=yes'))).to.equal('Invalid parameter: hbar');
      expect(message(await f.call('/api/v1/blocks?hbar=false'))).to.equal('Unknown query parameter: hbar');
    });
  });

  describe('contract result fields (contractResultDetailsViewModel.js)', () => {
    it('lists every field the real node lists, and adds logs and state_changes on a single result', async () => {
      const { body } = await f.call('/api/v1/contracts/results?limit=1');
      expect(Object.keys(body.results[0]).sort()).to.deep.equal(LISTED_KEYS);
      const single = (await f.call(`/api/v1/contracts/results/${f.increments[0].ethHash}`)).body;
      expect(Object.keys(single).sort()).to.deep.equal([...LISTED_KEYS, 'logs', 'state_changes'].sort());
      expect(single.access_list).to.deep.equal([]);
      expect(single.authorization_list).to.deep.equal([]);
      expect(single.failed_initcode).to.equal(null);
    });

    it('gives the storage slots a call read and wrote as state_changes', async () => {
      const first = (await f.call(`/api/v1/contracts/results/${f.increments[0].ethHash}`)).body;
      const slot = { address: f.contract.address, contract_id: f.contract.id, slot: word(0) };
      expect(first.state_changes).to.deep.equal([{ ...slot, value_read: word(0), value_written: word(1) }]);
      const second = (await f.call(`/api/v1/contracts/results/${f.increments[1].ethHash}`)).body;
      expect(second.state_changes).to.deep.equal([{ ...slot, value_read: word(1), value_written: word(2) }]);
      // A pure function touches no storage.
      expect((await f.call(`/api/v1/contracts/results/${f.revert.ethHash}`)).body.state_changes).to.deep.equal([]);
    });
  });

  describe('rules for combining filters', () => {
    const logs = '/api/v1/contracts/results/logs';
    let t: string;
    before(() => {
      t = f.increments[0].consensusTimestamp;
    });

    it('/contracts/results/logs: index needs a timestamp, and index equality a timestamp equality (validateContractLogsBounds, validateBounds)', async () => {
      const cases: Array<[string, string]> = [
        [`index=1&timestamp=gte:${t}`, 'timestamp must have eq operator'],
        ['index=gt:0', 'index without a timestamp parameter filter'],
        [`index=gt:0&timestamp=gt:${t}`, 'timestamp must have gte or eq operator'],
        [`index=lt:3&timestamp=lt:${t}`, 'timestamp must have lte or eq operator'],
        [`index=1&index=2&timestamp=${t}`, 'Only one equal (eq) operator is allowed for index'],
        [`timestamp=${t}&timestamp=gt:1`, "Can't support both range and equal for timestamp"],
        [`timestamp=ne:${t}`, 'Not equal (ne) operator is not supported for timestamp'],
        [`timestamp=gte:1&timestamp=gt:2`, 'Only one gt/gte operator is allowed for timestamp'],
      ];
      for (const [query, expected] of cases) {
        const res = await f.call(`${logs}?${query}`);
        expect([res.status, message(res)], query).to.deep.equal([400, expected]);
      }
      // gte:T and lte:T together read as timestamp=T, so index equality is allowed (alterTimestampRange).
      const exact = await f.call(`${logs}?timestamp=gte:${t}&timestamp=lte:${t}&index=0`);
      expect(exact.body.logs.map((l: any) => [l.timestamp, l.index])).to.deep.equal([[t, 0]]);
    });

    it('/contracts/results/logs: at most one transaction.hash', async () => {
      const res = await f.call(`${logs}?transaction.hash=${f.increments[0].ethHash}&transaction.hash=${f.increments[1].ethHash}`);
      expect([res.status, message(res)]).to.deep.equal([400, 'Only one transaction.hash filter is allowed']);
    });

    it('topic filters need a closed timestamp range of at most 7 days, or timestamp equality (checkTimestampsForTopics)', async () => {
      const topic = f.abi.getEvent('Incremented')!.topicHash;
      const prefix = 'Cannot search topics without a valid timestamp range: ';
      const seconds = Number(t.split('.')[0]);
      const cases: Array<[string, string]> = [
        [`topic0=${topic}`, 'No timestamp range or eq operator provided'],
        [`topic0=${topic}&timestamp=gte:${t}`, 'Timestamp range must have gt (or gte) and lt (or lte), or eq operator'],
        [`topic0=${topic}&timestamp=gte:${seconds - 8 * 86400}&timestamp=lte:${seconds}`, 'Timestamp range by the lower and upper bounds must be positive and within 7d'],
      ];
      for (const [query, expected] of cases) {
        const res = await f.call(`/api/v1/contracts/${f.contract.id}/results/logs?${query}`);
        expect([res.status, message(res)], query).to.deep.equal([400, prefix + expected]);
      }
      const ok = await f.call(`${logs}?topic0=${topic}&timestamp=${t}`);
      expect(ok.body.logs).to.have.length(1);
    });

    it('/accounts/{id}: a timestamp range in which the account had no state is 404 (accounts.js getOneAccount)', async () => {
      const alice = f.alice.address;
      const account = (await f.call(`/api/v1/accounts/${alice}?transactions=false`)).body;
      const before = await f.call(`/api/v1/accounts/${alice}?timestamp=lt:${account.created_timestamp}`);
      expect([before.status, message(before)]).to.deep.equal([404, 'Not found']);
      const empty = await f.call(`/api/v1/accounts/${alice}?timestamp=gt:${t}&timestamp=lt:${t}`);
      expect([empty.status, message(empty)]).to.deep.equal([404, 'Timestamp range is empty']);
      expect((await f.call(`/api/v1/accounts/${alice}?timestamp=lte:${account.created_timestamp}`)).status).to.equal(200);
    });

    it('/network/fees and /network/exchangerate before the first fee schedule and rate file are 404; at most two timestamps (NetworkController)', async () => {
      const genesis = f.chain.blocks()[0].timestampFrom;
      const fees = await f.call(`/api/v1/network/fees?timestamp=lt:${genesis}`);
      expect([fees.status, message(fees)]).to.deep.equal([404, 'File 0.0.111 not found']);
      const rate = await f.call(`/api/v1/network/exchangerate?timestamp=lt:${genesis}`);
      expect([rate.status, message(rate)]).to.deep.equal([404, 'File 0.0.112 not found']);
      expect((await f.call(`/api/v1/network/fees?timestamp=lte:${genesis}`)).status).to.equal(200);
      expect((await f.call(`/api/v1/network/fees?timestamp=gt:1&timestamp=lt:${t}&timestamp=lte:${t}`)).status).to.equal(400);
    });

    it('/contracts/{id}/results and /results/logs of an unknown contract are empty pages, not 404 (getContractResultsById)', async () => {
      const unknown = `0x${'77'.repeat(20)}`;
      expect(await f.call(`/api/v1/contracts/${unknown}/results`)).to.deep.equal({ status: 200, body: { results: [], links: { next: null } } });
    });

    it('/balances: at most one EVM address or alias in account.id, and only as an equality (balances.js parseAccountIdQueryParam)', async () => {
      const two = await f.call(`/api/v1/balances?account.id=${f.alice.address}&account.id=${f.bob.address}`);
      expect([two.status, two.body._status.messages[0]]).to.deep.equal([400, { message: 'Invalid parameter: account.id', detail: 'Only one EVM address or alias is allowed.' }]);
      const range = await f.call(`/api/v1/balances?account.id=gte:${f.alice.address}`);
      expect(range.body._status.messages[0]).to.deep.equal({ message: 'Invalid parameter: account.id', detail: 'EVM address or alias only supports equals operator' });
      const one = await f.call(`/api/v1/balances?account.id=${f.alice.address}&account.id=gte:0.0.1`);
      expect(one.body.balances.map((b: any) => b.account)).to.deep.equal([f.chain.account(f.alice.address.toLowerCase())!.id]);
    });

    it('/contracts/results: block.number takes only equality (contractResultsFilterValidityChecks)', async () => {
      expect(message(await f.call('/api/v1/contracts/results?block.number=gt:1'))).to.equal('Invalid parameter: block.number');
    });
  });

  it('accepts every query parameter the current OpenAPI document gives the endpoints it serves', async () => {
    const spec = yaml.load(readFileSync(new URL('../../../../test/reference/mirror-node/openapi-v0.160.yml', import.meta.url), 'utf8')) as any;
    const concrete: Record<string, string> = {
      '/api/v1/accounts/{idOrAliasOrEvmAddress}': `/api/v1/accounts/${f.alice.address}`,
      '/api/v1/balances': '/api/v1/balances',
      '/api/v1/blocks': '/api/v1/blocks',
      '/api/v1/contracts/{contractIdOrAddress}': `/api/v1/contracts/${f.contract.id}`,
      '/api/v1/contracts/{contractIdOrAddress}/results': `/api/v1/contracts/${f.contract.id}/results`,
      '/api/v1/contracts/{contractIdOrAddress}/results/{timestamp}': `/api/v1/contracts/${f.contract.id}/results/${f.increments[0].consensusTimestamp}`,
      '/api/v1/contracts/results': '/api/v1/contracts/results',
      '/api/v1/contracts/results/{transactionIdOrHash}': `/api/v1/contracts/results/${f.increments[0].ethHash}`,
      '/api/v1/contracts/results/logs': '/api/v1/contracts/results/logs',
      '/api/v1/contracts/{contractIdOrAddress}/results/logs': `/api/v1/contracts/${f.contract.id}/results/logs`,
      '/api/v1/network/fees': '/api/v1/network/fees',
      '/api/v1/network/exchangerate': '/api/v1/network/exchangerate',
      '/api/v1/transactions': '/api/v1/transactions',
    };
    // Values that make sense together; the point is that no parameter name is unknown.
    const values: Record<string, string> = { timestamp: `lte:${f.increments[0].consensusTimestamp}`, limit: '2', order: 'asc', hbar: 'false', nonce: '0', index: '0', 'account.publickey': '0x' + '02'.padEnd(66, '0') };
    const unknown: string[] = [];
    for (const [template, path] of Object.entries(concrete)) {
      const params = (spec.paths[template].get.parameters ?? [])
        .map((p: any) => (p.$ref ? spec.components.parameters[p.$ref.split('/').pop()] : p))
        .filter((p: any) => p.in === 'query');
      for (const p of params) {
        const example = p.example ?? Object.values(p.examples ?? {}).map((e: any) => e.value).find((v: unknown) => v !== '');
        const value = values[p.name] ?? String(Array.isArray(example) ? example[0] : example ?? '1');
        const res = await fetch(`${f.mirror.url}${path}?${p.name}=${encodeURIComponent(value)}`);
        const body = (await res.json()) as any;
        for (const m of body._status?.messages ?? []) if (String(m.message).startsWith('Unknown query parameter')) unknown.push(`${template} ${p.name}`);
      }
    }
    expect(unknown).to.deep.equal([]);
  });

  // Last (mocha runs a suite's own tests before its child suites): it adds a block the other tests do not expect.
  describe('failed transactions', () => {
    it("gives a failed call its call data as failed_initcode (spec test failed-ethereum-transaction-with-contract-result-with-nullable-to.json)", async () => {
      const { body } = await f.call(`/api/v1/contracts/results/${f.revert.ethHash}`);
      expect(body.status).to.equal('0x0');
      expect(body.failed_initcode).to.equal(f.abi.encodeFunctionData('check', [42]));
    });

    it('gives a failed creation its init code as failed_initcode', async () => {
      // Init code that reverts at once: PUSH1 0, PUSH1 0, REVERT.
      const initcode = '0x60006000fd';
      const hash = await f.submit(f.alice, { nonce: 4, data: initcode, gasLimit: 100_000 });
      await f.chain.closeBlock();
      const { body } = await f.call(`/api/v1/contracts/results/${hash}`);
      expect([body.status, body.failed_initcode, body.contract_id]).to.deep.equal(['0x0', initcode, null]);
    });
  });
});
