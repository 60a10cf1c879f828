/**
 * A consensus node's answers to queries: receipts and balances for free, records, account info, file contents and
 * version info for a fee (a cost query first, as the SDK asks). Query payments are checked for presence only and not
 * charged: the sandbox's accounts would drift for no one's benefit.
 */
import { proto } from '@hashgraph/proto';
import type { LedgerChain } from './chain.js';
import {
  accountIdProto,
  contractIdProto,
  exchangeRateSet,
  fileIdProto,
  idOf,
  int64,
  statusCode,
  timestampProto,
  tokenIdProto,
  transactionIdOf,
  transactionIdProto,
} from './hapi.js';
import { accountRef, resolveExisting } from './aliases.js';
import { functionResult } from './contracts.js';
import type { LedgerTransaction } from './view.js';
import { HAPI_VERSION } from './hapiVersion.js';

/** What a paid query costs, in tinybar (roughly the ledger's price of a record query). */
const QUERY_COST_TINYBAR = 100_000;
const FREE = new Set(['transactionGetReceipt', 'cryptogetAccountBalance']);

type Answer = Record<string, unknown>;
type Handler = (chain: LedgerChain, q: proto.Query) => Promise<{ status: string; answer?: Answer }>;

function receiptOf(tx: LedgerTransaction | undefined, status: string): proto.ITransactionReceipt {
  const receipt: proto.ITransactionReceipt = { status: statusCode(status), exchangeRate: exchangeRateSet() };
  if (tx?.name === 'FILECREATE' && tx.result === 'SUCCESS' && tx.fileId) receipt.fileID = fileIdProto(tx.fileId);
  if (tx?.contractId) receipt.contractID = contractIdProto(tx.contractId);
  if (tx?.result === 'SUCCESS' && tx.entityId && tx.name === 'CRYPTOCREATEACCOUNT') receipt.accountID = accountIdProto(tx.entityId);
  if (tx?.result === 'SUCCESS' && tx.entityId && tx.name === 'TOKENCREATION') receipt.tokenID = tokenIdProto(tx.entityId);
  // TransactionReceipt.newTotalSupply and serialNumbers: what a TokenMint answers.
  if (tx?.newTotalSupply !== undefined) receipt.newTotalSupply = int64(tx.newTotalSupply);
  if (tx?.serialNumbers) receipt.serialNumbers = tx.serialNumbers.map((n) => int64(n));
  return receipt;
}

/** TransactionRecord.tokenTransferLists: one list per token, fungible amounts and NFT serials (a mint's sender unset). */
function tokenTransferListsOf(tx: LedgerTransaction): proto.ITokenTransferList[] {
  const lists = new Map<string, proto.ITokenTransferList>();
  const listOf = (token: string) => lists.get(token) ?? lists.set(token, { token: tokenIdProto(token), transfers: [], nftTransfers: [] }).get(token)!;
  for (const t of tx.tokenTransfers ?? []) {
    listOf(t.token).transfers!.push({ accountID: accountIdProto(t.account), amount: int64(t.amount), isApproval: t.isApproval === true });
  }
  for (const n of tx.nftTransfers ?? []) {
    listOf(n.token).nftTransfers!.push({
      ...(n.sender ? { senderAccountID: accountIdProto(n.sender) } : {}),
      ...(n.receiver ? { receiverAccountID: accountIdProto(n.receiver) } : {}),
      serialNumber: int64(n.serial),
      isApproval: n.isApproval,
    });
  }
  return [...lists.values()];
}

/** The account an AccountID names, by number or by alias (HIP-32 key, HIP-583 EVM address), as queries accept. */
function accountNamed(chain: LedgerChain, id: proto.IAccountID | null | undefined) {
  const ref = accountRef(id);
  return ref ? resolveExisting(chain, ref) : undefined;
}

/** A transaction's child records (auto-creations, hollow-account completions), in consensus order. */
function childrenOf(chain: LedgerChain, parent: LedgerTransaction): LedgerTransaction[] {
  return chain.transactions().filter((t) => t.nonce && t.blockNumber === parent.blockNumber && t.transactionId === parent.transactionId);
}

/** The TransactionRecord as the network gives it (@hashgraph/proto TransactionRecord). */
async function recordOf(chain: LedgerChain, tx: LedgerTransaction): Promise<proto.ITransactionRecord> {
  const record: proto.ITransactionRecord = {
    receipt: receiptOf(tx, tx.result),
    transactionHash: Buffer.from(tx.hash.slice(2), 'hex'),
    consensusTimestamp: timestampProto(tx.consensusTimestamp),
    transactionID: { ...transactionIdProto(tx.transactionId), ...(tx.nonce ? { nonce: tx.nonce } : {}) },
    memo: tx.memo ?? '',
    transactionFee: int64(tx.chargedTxFeeTinybar),
    transferList: { accountAmounts: tx.transfers.map((t) => ({ accountID: accountIdProto(t.account), amount: int64(t.amount) })) },
  };
  const tokenTransferLists = tokenTransferListsOf(tx);
  if (tokenTransferLists.length) record.tokenTransferLists = tokenTransferLists;
  if (tx.ethHash && tx.name === 'ETHEREUMTRANSACTION') record.ethereumHash = Buffer.from(tx.ethHash.slice(2), 'hex');
  // An auto-creation's record carries the alias it was created under: an EVM address in its own field, a key as `alias`.
  const created = tx.nonce && tx.name === 'CRYPTOCREATEACCOUNT' && tx.entityId ? chain.account(tx.entityId) : undefined;
  if (created?.alias) {
    const alias = Buffer.from(created.alias.slice(2), 'hex');
    if (alias.length === 20) record.evmAddress = alias;
    else record.alias = alias;
  }
  const result = await functionResult(chain.evm, tx, (x) => chain.account(x));
  if (result) {
    if (tx.name === 'CONTRACTCREATEINSTANCE') record.contractCreateResult = result;
    else record.contractCallResult = result;
  }
  return record;
}

const handlers: Record<string, Handler> = {
  async transactionGetReceipt(chain, q) {
    const id = transactionIdOf(q.transactionGetReceipt?.transactionID);
    const r = id ? chain.receipt(id) : undefined;
    if (!r) return { status: id ? 'RECEIPT_NOT_FOUND' : 'INVALID_TRANSACTION_ID' };
    const answer: Answer = { receipt: receiptOf(r.transaction, r.status) };
    if (q.transactionGetReceipt?.includeChildReceipts && r.transaction) answer.childTransactionReceipts = childrenOf(chain, r.transaction).map((c) => receiptOf(c, c.result));
    return { status: 'OK', answer };
  },

  async transactionGetRecord(chain, q) {
    const id = transactionIdOf(q.transactionGetRecord?.transactionID);
    const r = id ? chain.receipt(id) : undefined;
    if (!r) return { status: id ? 'RECORD_NOT_FOUND' : 'INVALID_TRANSACTION_ID' };
    const tx = r.transaction;
    if (!tx) return { status: 'OK', answer: { transactionRecord: { receipt: receiptOf(undefined, r.status), transactionID: transactionIdProto(id!) } } };
    const answer: Answer = { transactionRecord: await recordOf(chain, tx) };
    if (q.transactionGetRecord?.includeChildRecords) answer.childTransactionRecords = await Promise.all(childrenOf(chain, tx).map((c) => recordOf(chain, c)));
    return { status: 'OK', answer };
  },

  async cryptogetAccountBalance(chain, q) {
    const body = q.cryptogetAccountBalance;
    const account = body?.contractID ? chain.account(idOf(body.contractID) ?? '') : accountNamed(chain, body?.accountID);
    if (!account) return { status: body?.contractID ? 'INVALID_CONTRACT_ID' : 'INVALID_ACCOUNT_ID' };
    return { status: 'OK', answer: { accountID: accountIdProto(account.id), balance: int64(await chain.balanceTinybar(account)) } };
  },

  async cryptoGetInfo(chain, q) {
    const account = accountNamed(chain, q.cryptoGetInfo?.accountID);
    if (!account) return { status: 'INVALID_ACCOUNT_ID' };
    const key = chain.accountKey(account.id);
    const nonce = (await chain.evm.request({ method: 'eth_getTransactionCount', params: [account.evmAddress, 'latest'] })) as string;
    const info: proto.CryptoGetInfoResponse.IAccountInfo = {
      accountID: accountIdProto(account.id),
      contractAccountID: account.evmAddress.slice(2),
      deleted: false,
      balance: int64(await chain.balanceTinybar(account)),
      ethereumNonce: int64(BigInt(nonce)),
      autoRenewPeriod: { seconds: int64(7_776_000) },
      expirationTime: { seconds: int64(Math.floor(Date.now() / 1000) + 7_776_000) },
      memo: '',
    };
    if (key) info.key = key.type === 'ED25519' ? { ed25519: key.toBytesRaw() } : { ECDSASecp256k1: key.toBytesRaw() };
    // A hollow account's key is the empty key list (HIP-583).
    else if (!account.isContract) info.key = { keyList: { keys: [] } };
    // A key alias is given back; an EVM-address alias shows as the contract account id only (the SDK reads `alias` as a Key).
    if (account.alias && account.alias.length !== 42) info.alias = Buffer.from(account.alias.slice(2), 'hex');
    return { status: 'OK', answer: { accountInfo: info } };
  },

  async fileGetContents(chain, q) {
    const id = idOf(q.fileGetContents?.fileID);
    const contents = id ? chain.fileContents(id) : undefined;
    if (!contents) return { status: id && chain.fileDeleted(id) ? 'FILE_DELETED' : 'INVALID_FILE_ID' };
    return { status: 'OK', answer: { fileContents: { fileID: fileIdProto(id!), contents } } };
  },

  async networkGetVersionInfo() {
    return { status: 'OK', answer: { hapiProtoVersion: HAPI_VERSION, hederaServicesVersion: HAPI_VERSION } };
  },
};

/** Answers one encoded Query with an encoded Response; garbage gets an error status, never an exception. */
export async function answerQuery(chain: LedgerChain, bytes: Uint8Array): Promise<Uint8Array | undefined> {
  let query: proto.Query;
  try {
    query = proto.Query.decode(bytes);
  } catch {
    return undefined;
  }
  const kind = query.query;
  if (!kind) return undefined;
  const header = (query[kind] as { header?: proto.IQueryHeader } | null)?.header;
  const responseType = header?.responseType ?? proto.ResponseType.ANSWER_ONLY;
  const reply = (status: string, answer: Answer = {}, cost = int64(0)) =>
    proto.Response.encode({ [kind]: { header: { nodeTransactionPrecheckCode: statusCode(status), responseType, cost }, ...answer } }).finish();

  const handler = handlers[kind];
  if (!handler) return reply('NOT_SUPPORTED');
  const paid = !FREE.has(kind);
  if (paid && (responseType === proto.ResponseType.COST_ANSWER || responseType === proto.ResponseType.COST_ANSWER_STATE_PROOF)) {
    return reply('OK', {}, int64(QUERY_COST_TINYBAR));
  }
  if (paid && !header?.payment) return reply('INSUFFICIENT_TX_FEE', {}, int64(QUERY_COST_TINYBAR));
  const { status, answer } = await handler(chain, query);
  return reply(status, answer);
}
