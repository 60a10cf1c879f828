/**
 * debug_traceTransaction and debug_traceBlockBy* through the gateway on the ledger sandbox: a contract that calls
 * another contract, sent with ethers through /rpc (real gRPC consensus stand-in, real EVM), traced from the mirror
 * stand-in's contract actions and opcodes. The EVM's own geth-style traces of the same transactions are the oracle.
 */
import { expect } from 'chai';
import { AbiCoder, ContractFactory, Interface, JsonRpcProvider, Wallet, type Contract } from 'ethers';
import type { LedgerSandbox } from '../../packages/sandbox/src/index.js';
import { validateMirrorResponse } from '../support/mirrorSchema.js';
import { rpc, startTestGateway, type TestGateway } from '../support/gateway.js';
import { callers } from './contract.js';

const NETWORK = 'hedera-testnet';
/** 100 tinybar: the ledger moves whole tinybar, so a value must be a multiple of 10^10 weibar. */
const VALUE = 1_000_000_000_000n;
const GAS_LIMIT = 400_000n;

describe('debug_trace* on the ledger relay (through the gateway, on the sandbox)', function () {
  let t: TestGateway;
  let sandbox: LedgerSandbox;
  let url: string;
  let provider: JsonRpcProvider;
  let outer: Contract;
  let inner: string;
  let outerAddress: string;
  let okHash: string;
  let revertHash: string;
  let peekHash: string;
  let okBlock: number;
  let innerDeployHash: string;
  let innerSetHash: string;
  const outerAbi = new Interface(callers().Outer.abi);

  const call = async (method: string, params: unknown[], target = url) => {
    const { json } = await rpc(target, { jsonrpc: '2.0', id: 1, method, params });
    return json;
  };
  const traced = async (method: string, params: unknown[]) => {
    const json = await call(method, params);
    if (json.error) throw new Error(`${method}: ${json.error.code} ${json.error.message}`);
    return json.result;
  };
  /** What the EVM itself traces for a transaction, in geth's shapes. */
  const evmTrace = (hash: string, options: object) => sandbox.chain.evm.request({ method: 'debug_traceTransaction', params: [hash, options] }) as Promise<any>;

  before(async () => {
    t = await startTestGateway();
    const network = t.gw.router.network(NETWORK)!;
    sandbox = await t.gw.local!.ledger(network);
    url = `${t.gw.url}/${NETWORK}/v1/${t.key}/rpc`;
    provider = new JsonRpcProvider(url, 296, { staticNetwork: true, cacheTimeout: -1, pollingInterval: 50 });
    const wallet = new Wallet(sandbox.accounts[0].privateKey, provider);
    const { Inner, Outer } = callers();
    const innerContract = await new ContractFactory(Inner.abi, Inner.bytecode, wallet).deploy();
    await innerContract.waitForDeployment();
    innerDeployHash = innerContract.deploymentTransaction()!.hash;
    inner = (await innerContract.getAddress()).toLowerCase();
    innerSetHash = (await (await (innerContract as unknown as Contract).set(3, { gasLimit: GAS_LIMIT })).wait())!.hash;
    const deployed = await new ContractFactory(Outer.abi, Outer.bytecode, wallet).deploy(inner);
    await deployed.waitForDeployment();
    outer = deployed as unknown as Contract;
    outerAddress = (await outer.getAddress()).toLowerCase();
    const ok = await (await outer.go(5, { value: VALUE, gasLimit: GAS_LIMIT })).wait();
    okHash = ok!.hash;
    okBlock = ok!.blockNumber;
    // An explicit gas limit skips estimation, which would refuse a call that reverts.
    const sent = await outer.go(500, { gasLimit: GAS_LIMIT });
    revertHash = sent.hash;
    await sent.wait().catch(() => undefined);
    peekHash = (await (await outer.peek({ gasLimit: GAS_LIMIT })).wait())!.hash;
  });

  after(async () => {
    provider?.destroy();
    await t?.close();
  });

  it('callTracer nests the inner call with value, gas, input and output, as the EVM traces it', async () => {
    const trace = await traced('debug_traceTransaction', [okHash, { tracer: 'callTracer' }]);
    const coder = AbiCoder.defaultAbiCoder();
    expect(trace).to.include({ type: 'CALL', from: sandbox.accounts[0].address, to: outerAddress, value: `0x${VALUE.toString(16)}` });
    expect(trace.gas).to.equal(`0x${GAS_LIMIT.toString(16)}`);
    expect(trace.input).to.equal(outerAbi.encodeFunctionData('go', [5]));
    expect(trace.output).to.equal(coder.encode(['uint256'], [11]));
    expect(trace.calls).to.have.length(1);
    const [child] = trace.calls;
    expect(child).to.include({ type: 'CALL', from: outerAddress, to: inner, value: `0x${VALUE.toString(16)}` });
    expect(child.input).to.equal(new Interface(callers().Inner.abi).encodeFunctionData('set', [5]));
    expect(child.output).to.equal(coder.encode(['uint256'], [10]));
    expect(Number(child.gas)).to.be.greaterThan(Number(child.gasUsed));
    expect(trace.error).to.equal(undefined);
    // The EVM's own callTracer of the same transaction, field for field.
    expect(trace).to.deep.equal(await evmTrace(okHash, { tracer: 'callTracer' }));
  });

  it('callTracer reports the revert and its reason in the frame that reverted and in the transaction', async () => {
    const trace = await traced('debug_traceTransaction', [revertHash, { tracer: 'callTracer' }]);
    // The transaction's frame names the ledger status, as the official relay's does (geth: `execution reverted`).
    expect(trace).to.include({ error: 'CONTRACT_REVERT_EXECUTED', revertReason: 'too big', to: outerAddress });
    expect(trace.calls[0]).to.include({ error: 'execution reverted', revertReason: 'too big', to: inner });
    expect(trace).to.deep.equal({ ...(await evmTrace(revertHash, { tracer: 'callTracer' })), error: 'CONTRACT_REVERT_EXECUTED' });
  });

  it('callTracer gives an inner STATICCALL frame a value of 0x0, as the official relay does', async () => {
    const trace = await traced('debug_traceTransaction', [peekHash, { tracer: 'callTracer' }]);
    expect(trace.calls).to.have.length(1);
    expect(trace.calls[0]).to.include({ type: 'STATICCALL', from: outerAddress, to: inner, value: '0x0' });
    // geth leaves the value out of a STATICCALL frame; every other field is the EVM's own.
    const evm = await evmTrace(peekHash, { tracer: 'callTracer' });
    expect(trace).to.deep.equal({ ...evm, calls: [{ ...evm.calls[0], value: '0x0' }] });
  });

  it('callTracer with onlyTopCall leaves the inner calls out: calls is empty, as the official relay sends it', async () => {
    const trace = await traced('debug_traceTransaction', [okHash, { tracer: 'callTracer', tracerConfig: { onlyTopCall: true } }]);
    expect(trace.calls).to.deep.equal([]);
    expect(trace.to).to.equal(outerAddress);
    const { calls: _calls, ...full } = await traced('debug_traceTransaction', [okHash, { tracer: 'callTracer' }]);
    expect(trace).to.deep.equal({ ...full, calls: [] });
  });

  it('callTracer of a transaction without inner calls still has calls (empty), output and to, which the official suite checks', async () => {
    const trace = await traced('debug_traceTransaction', [innerDeployHash, { tracer: 'callTracer' }]);
    expect(trace).to.include({ type: 'CREATE', to: inner });
    expect(trace.calls).to.deep.equal([]);
    expect(trace.output).to.equal(await traced('eth_getCode', [inner, 'latest']));
    const set = await traced('debug_traceTransaction', [innerSetHash, { tracer: 'callTracer' }]);
    expect(set).to.include({ type: 'CALL', to: inner, output: AbiCoder.defaultAbiCoder().encode(['uint256'], [6]) });
    expect(set.calls).to.deep.equal([]);
    // The EVM's own callTracer leaves out what is empty; every other field is the same.
    expect(set).to.deep.equal({ ...(await evmTrace(innerSetHash, { tracer: 'callTracer' })), calls: [] });
  });

  it('prestateTracer gives each account the calls touched as it was before the transaction, keyed by EVM address', async () => {
    const sender = sandbox.accounts[0].address.toLowerCase();
    const prestate = await traced('debug_traceTransaction', [okHash, { tracer: 'prestateTracer' }]);
    expect(Object.keys(prestate).sort()).to.deep.equal([sender, outerAddress, inner].sort());
    const evm = await evmTrace(okHash, { tracer: 'prestateTracer' });
    const evmOf = (address: string) => Object.entries(evm).find(([a]) => a.toLowerCase() === address)![1] as any;
    for (const contract of [outerAddress, inner]) {
      expect(prestate[contract].code, contract).to.equal(await traced('eth_getCode', [contract, 'latest']));
      // The slots the transaction touched, with the values it read: what the EVM's own prestateTracer reports.
      expect(prestate[contract].storage, contract).to.deep.equal(evmOf(contract).storage ?? {});
    }
    const before = `0x${(okBlock - 1).toString(16)}`;
    expect(prestate[sender]).to.deep.include({ code: '0x', storage: {}, balance: await traced('eth_getBalance', [sender, before]) });
    expect(prestate[sender].nonce).to.equal(Number(await traced('eth_getTransactionCount', [sender, before])));
    expect(prestate[inner].balance).to.equal(await traced('eth_getBalance', [inner, before]));
    const topOnly = await traced('debug_traceTransaction', [okHash, { tracer: 'prestateTracer', tracerConfig: { onlyTopCall: true } }]);
    expect(topOnly).to.deep.equal({ [sender]: prestate[sender], [outerAddress]: prestate[outerAddress] });
    const block = await traced('debug_traceBlockByNumber', [`0x${okBlock.toString(16)}`, { tracer: 'prestateTracer' }]);
    expect(block).to.deep.equal([{ txHash: okHash, result: prestate }]);
    const created = await traced('debug_traceTransaction', [innerDeployHash, { tracer: 'prestateTracer' }]);
    expect(created[inner]).to.deep.equal({ balance: '0x0', nonce: 0, code: '0x', storage: {} });
    const diff = await call('debug_traceTransaction', [okHash, { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }]);
    expect(diff.error.code).to.equal(-32602);
  });

  it('opcodeLogger (the default) gives the struct log of both contracts, as the EVM does', async () => {
    const trace = await traced('debug_traceTransaction', [okHash]);
    const evm = await evmTrace(okHash, {});
    expect(trace).to.include({ failed: false, gas: evm.gas, returnValue: evm.returnValue.replace(/^0x/, '') });
    expect(trace.structLogs).to.have.length(evm.structLogs.length);
    expect(trace.structLogs.map((l: any) => [l.pc, l.op, l.depth, l.gas, l.gasCost])).to.deep.equal(
      evm.structLogs.map((l: any) => [l.pc, l.op, l.depth, l.gas, l.gasCost]),
    );
    expect(new Set(trace.structLogs.map((l: any) => l.depth))).to.deep.equal(new Set([1, 2]));
    const callOp = trace.structLogs.find((l: any) => l.op === 'CALL');
    // Stack words as geth prints them: 64 hex digits without 0x; the callee's address is among them.
    expect(callOp.stack.every((w: string) => /^[0-9a-f]{64}$/.test(w))).to.equal(true);
    expect(callOp.stack.some((w: string) => w.endsWith(inner.slice(2)))).to.equal(true);
    expect(callOp.memory).to.equal(undefined);
  });

  it('opcodeLogger takes geth switches: memory on, stack and storage off', async () => {
    const trace = await traced('debug_traceTransaction', [okHash, { enableMemory: true, disableStack: true, disableStorage: true }]);
    const withMemory = trace.structLogs.filter((l: any) => l.memory?.length > 0);
    expect(withMemory.length).to.be.greaterThan(0);
    expect(trace.structLogs.every((l: any) => l.stack === undefined && l.storage === undefined)).to.equal(true);
  });

  it('opcodeLogger marks a reverted transaction failed and gives the REVERT its reason', async () => {
    const trace = await traced('debug_traceTransaction', [revertHash, { tracer: 'opcodeLogger' }]);
    expect(trace.failed).to.equal(true);
    const reverts = trace.structLogs.filter((l: any) => l.op === 'REVERT');
    expect(reverts.length).to.equal(2);
    const reason = AbiCoder.defaultAbiCoder().decode(['string'], `0x${reverts[0].reason.slice(8)}`)[0];
    expect(reason).to.equal('too big');
  });

  it('debug_traceBlockByNumber and ByHash trace every transaction of the block with callTracer by default', async () => {
    const byNumber = await traced('debug_traceBlockByNumber', [`0x${okBlock.toString(16)}`]);
    expect(byNumber).to.deep.equal([{ txHash: okHash, result: await traced('debug_traceTransaction', [okHash, { tracer: 'callTracer' }]) }]);
    const block = await traced('eth_getBlockByNumber', [`0x${okBlock.toString(16)}`, false]);
    expect(await traced('debug_traceBlockByHash', [block.hash, { tracer: 'callTracer' }])).to.deep.equal(byNumber);
    const opcodes = await traced('debug_traceBlockByHash', [block.hash, { tracer: 'opcodeLogger', tracerConfig: { disableStack: true } }]);
    expect(opcodes[0].txHash).to.equal(okHash);
    expect(opcodes[0].result.structLogs.length).to.be.greaterThan(100);
  });

  /** The code and message of a refused call. */
  const refusal = async (method: string, params: unknown[]) => {
    const { error } = await call(method, params);
    return `${error.code} ${error.message}`;
  };

  it('answers unknown transactions and blocks in the official relay\'s code and words (its debug acceptance suite)', async () => {
    const unknown = `0x${'ab'.repeat(32)}`;
    const notFound = `-32001 Requested resource not found. Failed to retrieve transaction information for ${unknown}`;
    expect(await refusal('debug_traceTransaction', [unknown])).to.equal(notFound);
    expect(await refusal('debug_traceTransaction', [unknown, { tracer: 'callTracer', tracerConfig: { onlyTopCall: true } }])).to.equal(notFound);
    const zero = `0x${'00'.repeat(32)}`;
    expect(await refusal('debug_traceBlockByHash', [zero, { tracer: 'callTracer' }])).to.equal(`-32001 Requested resource not found. Block ${zero} not found`);
    expect((await call('debug_traceBlockByNumber', ['0xffffff'])).error.code).to.equal(-39012);
  });

  it('refuses bad hashes, block numbers and tracers in the official relay\'s words (its debug acceptance suite)', async () => {
    const blockWords = 'Expected 0x prefixed hexadecimal block number, or the string "latest", "earliest" or "pending"';
    expect(await refusal('debug_traceBlockByNumber', ['invalidBlockNumber', { tracer: 'callTracer' }])).to.equal(
      `-32602 Invalid parameter 0: ${blockWords}, value: invalidBlockNumber`,
    );
    expect(await refusal('debug_getRawReceipts', ['invalidBlockNumber'])).to.equal(
      `-32602 Invalid parameter 0: The value passed is not valid: invalidBlockNumber. ${blockWords} OR Expected Expected 0x prefixed string representing the hash (32 bytes) of a block`,
    );
    expect(await refusal('debug_traceTransaction', ['0xinvalidhash'])).to.equal(
      '-32602 Invalid parameter 0: Expected Expected 0x prefixed string representing the hash (32 bytes) of a transaction, value: 0xinvalidhash',
    );
    const badTracer = "-32602 Invalid parameter 'tracer' for TracerConfigWrapper: Expected TracerType, value: InvalidTracer";
    expect(await refusal('debug_traceTransaction', [okHash, { tracer: 'InvalidTracer' }])).to.equal(badTracer);
    expect(await refusal('debug_traceBlockByNumber', [`0x${okBlock.toString(16)}`, { tracer: 'InvalidTracer', tracerConfig: { onlyTopCall: false } }])).to.equal(badTracer);
    expect(await refusal('debug_traceTransaction', [okHash, { tracer: 'callTracer', tracerConfig: { onlyTopCall: 'invalid' } }])).to.equal(
      `-32602 Invalid parameter 'tracerConfig' for TracerConfigWrapper: Expected TracerConfig, value: {"onlyTopCall":"invalid"}`,
    );
    expect(await refusal('debug_traceTransaction', [okHash, { tracer: 'opcodeLogger', tracerConfig: { enableMemory: 'invalid' } }])).to.equal(
      `-32602 Invalid parameter 'tracerConfig' for TracerConfigWrapper: Expected TracerConfig, value: {"enableMemory":"invalid"}`,
    );
  });

  it('refuses one tracer\'s config with the other and config given twice, as the official relay does', async () => {
    const refused = (words: string) => `-32602 Invalid parameter 1: ${words} for TracerConfigWrapper`;
    expect(await refusal('debug_traceTransaction', [okHash, { tracer: 'opcodeLogger', tracerConfig: { onlyTopCall: true } }])).to.equal(
      '-32602 Invalid parameter 1: callTracer config properties for TracerConfigWrapper are only valid when tracer=callTracer',
    );
    expect(await refusal('debug_traceTransaction', [okHash, { tracer: 'callTracer', tracerConfig: { enableMemory: true } }])).to.equal(
      '-32602 Invalid parameter 1: opcodeLogger config properties for TracerConfigWrapper are only valid when tracer=opcodeLogger',
    );
    expect(await refusal('debug_traceTransaction', [okHash, { enableMemory: true, tracerConfig: { disableStack: false } }])).to.equal(
      refused("Cannot specify tracer config properties both at top level and in 'tracerConfig'"),
    );
    expect(await refusal('debug_traceTransaction', [okHash, { tracer: 'opcodeLogger', enableMemory: true }])).to.equal(
      refused("Cannot specify tracer config properties at top level when 'tracer' is explicitly set"),
    );
  });

  it('refuses debug calls of a plan without debugMethods per call, naming the plans that include them', async () => {
    // The developer plan includes the ledger relay but not the debug methods.
    const { key } = await t.newKey('developer', []);
    const developer = `${t.gw.url}/${NETWORK}/v1/${key}/rpc`;
    const { status, json, text } = await rpc(developer, [
      { jsonrpc: '2.0', id: 1, method: 'debug_traceTransaction', params: [okHash, { tracer: 'callTracer' }] },
      { jsonrpc: '2.0', id: 2, method: 'eth_chainId', params: [] },
    ]);
    expect(status).to.equal(200);
    expect(json[0].error.code).to.equal(-32003);
    expect(json[0].error.message).to.include('Premium and Enterprise').and.include('Developer plan');
    expect(json[1].result).to.equal('0x128');
    expect(text).not.to.include(key);
  });

  it('refuses a free-plan key on the ledger (no relay) and on an EVM devnet (no debug), where an enterprise key is forwarded', async () => {
    const { key } = await t.newKey('free', []);
    expect((await rpc(`${t.gw.url}/${NETWORK}/v1/${key}/rpc`, { jsonrpc: '2.0', id: 1, method: 'debug_traceBlockByNumber', params: ['latest'] })).status).to.equal(403);
    const sepolia = (k: string) => `${t.gw.url}/ethereum-sepolia/v1/${k}/rpc`;
    const free = await call('debug_traceBlockByNumber', ['latest', { tracer: 'callTracer' }], sepolia(key));
    expect(free.error.code).to.equal(-32003);
    expect(free.error.message).to.include('Free plan');
    const traceCall = ['debug_traceCall', [{ to: sandbox.accounts[1].address, value: '0x1' }, 'latest', { tracer: 'callTracer' }]] as const;
    expect((await call(traceCall[0], [...traceCall[1]], sepolia(key))).error.code).to.equal(-32003);
    const enterprise = await call(traceCall[0], [...traceCall[1]], sepolia(t.key));
    expect(enterprise.result).to.include({ type: 'CALL', to: sandbox.accounts[1].address, value: '0x1' });
  });

  it('the mirror stand-in answers /actions and /opcodes in the mirror node\'s OpenAPI shapes', async () => {
    for (const path of [`/api/v1/contracts/results/${okHash}/actions`, `/api/v1/contracts/results/${revertHash}/actions?limit=1&index=gt:0`, `/api/v1/contracts/results/${okHash}/opcodes?memory=true&storage=true`]) {
      const res = await fetch(`${sandbox.mirrorUrl}${path}`);
      const body = await res.json();
      expect(res.status, path).to.equal(200);
      expect(validateMirrorResponse(path, 'get', 200, body), path).to.deep.equal([]);
    }
    const { actions } = await (await fetch(`${sandbox.mirrorUrl}/api/v1/contracts/results/${revertHash}/actions`)).json();
    expect(actions.map((a: any) => [a.index, a.call_depth, a.caller_type, a.result_data_type])).to.deep.equal([
      [0, 0, 'ACCOUNT', 'REVERT_REASON'],
      [1, 1, 'CONTRACT', 'REVERT_REASON'],
    ]);
    const missing = await fetch(`${sandbox.mirrorUrl}/api/v1/contracts/results/0x${'cd'.repeat(32)}/actions`);
    expect(missing.status).to.equal(404);
  });
});
