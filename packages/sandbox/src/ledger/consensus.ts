/**
 * The consensus-node stand-in: a gRPC server speaking the ledger's real service paths (`/proto.<Service>/<method>`)
 * with the real protobuf messages, so the real `@hashgraph/sdk` talks to it as to a network node.
 */
import * as grpc from '@grpc/grpc-js';
import { proto } from '@hashgraph/proto';
import type { LedgerChain } from './chain.js';
import { statusCode } from './hapi.js';
import { ingest } from './ingest.js';
import { answerQuery } from './queries.js';

/** Every transaction and query method of the services the sandbox serves (others answer NOT_SUPPORTED). */
const TRANSACTIONS: Record<string, string[]> = {
  SmartContractService: ['callEthereum', 'createContract', 'updateContract', 'contractCallMethod', 'deleteContract'],
  FileService: ['createFile', 'updateFile', 'deleteFile', 'appendContent'],
  CryptoService: ['createAccount', 'updateAccount', 'cryptoTransfer', 'cryptoDelete', 'approveAllowances', 'deleteAllowances'],
  TokenService: [
    'createToken',
    'associateTokens',
    'mintToken',
    'grantKycToTokenAccount',
    'revokeKycFromTokenAccount',
    'freezeTokenAccount',
    'unfreezeTokenAccount',
  ],
};
const QUERIES: Record<string, string[]> = {
  SmartContractService: ['contractCallLocalMethod', 'getContractInfo', 'contractGetBytecode', 'getTxRecordByContractID'],
  FileService: ['getFileContent', 'getFileInfo'],
  CryptoService: ['getAccountRecords', 'cryptoGetBalance', 'getAccountInfo', 'getTransactionReceipts', 'getTxRecordByTxID'],
  NetworkService: ['getVersionInfo', 'getExecutionTime'],
};

const identity = (b: Buffer) => b;
type Unary = grpc.handleUnaryCall<Buffer, Buffer>;

function definition(service: string, methods: string[]): grpc.ServiceDefinition {
  return Object.fromEntries(
    methods.map((m) => [
      m,
      {
        path: `/proto.${service}/${m}`,
        requestStream: false,
        responseStream: false,
        requestSerialize: identity,
        requestDeserialize: identity,
        responseSerialize: identity,
        responseDeserialize: identity,
      },
    ]),
  );
}

export interface ConsensusNode {
  /** `host:port`, the form `Client.forNetwork` takes. */
  address: string;
  nodeAccountId: string;
  close(): Promise<void>;
}

export async function startConsensusNode(chain: LedgerChain, opts: { host?: string; port?: number } = {}): Promise<ConsensusNode> {
  const server = new grpc.Server();
  const transaction = (method: string): Unary => (call, callback) => {
    ingest(chain, method, call.request)
      .catch(() => 'FAIL_INVALID')
      .then((status) => {
        callback(null, Buffer.from(proto.TransactionResponse.encode({ nodeTransactionPrecheckCode: statusCode(status) }).finish()));
      });
  };
  const query: Unary = (call, callback) => {
    answerQuery(chain, call.request)
      .catch(() => undefined)
      .then((response) => {
        if (response) callback(null, Buffer.from(response));
        else callback({ code: grpc.status.INVALID_ARGUMENT, details: 'not a valid Query' });
      });
  };
  const services = new Set([...Object.keys(TRANSACTIONS), ...Object.keys(QUERIES)]);
  for (const service of services) {
    const txMethods = TRANSACTIONS[service] ?? [];
    const queryMethods = QUERIES[service] ?? [];
    const impl: grpc.UntypedServiceImplementation = {};
    for (const m of txMethods) impl[m] = transaction(m);
    for (const m of queryMethods) impl[m] = query;
    server.addService(definition(service, [...txMethods, ...queryMethods]), impl);
  }
  const host = opts.host ?? '127.0.0.1';
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${host}:${opts.port ?? 0}`, grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  return {
    address: `${host}:${port}`,
    nodeAccountId: chain.nodeAccountId,
    close: () =>
      new Promise<void>((resolve) => {
        server.tryShutdown(() => resolve());
        // In-flight SDK connections would hold a graceful shutdown open; the sandbox owes them nothing.
        setTimeout(() => server.forceShutdown(), 1_000).unref();
      }),
  };
}
