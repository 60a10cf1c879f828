/**
 * Blocks, headers and transactions as RLP bytes, for debug_getRawBlock, debug_getRawHeader and
 * debug_getRawTransaction, built from the objects eth_getBlockBy* and eth_getTransactionByHash answer. Followed: the
 * official relay's BlockFactory (rlpEncodeBlock, rlpEncodeBlockHeader, rlpEncodeTx), so both relays give the same
 * bytes for the same objects: quantities are encoded as their hex digits padded to whole bytes (`0x0` is the byte
 * 0x00), the beneficiary is the ledger's node-reward account, and a block's transactions are byte strings.
 */
import { Signature } from 'ethers/crypto';
import { Transaction, type AccessListish } from 'ethers/transaction';
import { encodeRlp, type RlpStructuredData } from 'ethers/utils';

/** The account that collects the ledger's node rewards (HIP-1259), in place of a miner. */
const NODE_REWARD_ACCOUNT = '0x0000000000000000000000000000000000000321';
/** keccak256(rlp([])): the ommers hash of a block without uncles. */
const EMPTY_OMMERS_HASH = '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347';
const ZERO_32 = `0x${'0'.repeat(64)}`;

/** The fields of a block object (as eth_getBlockBy* answers) that its header holds. */
export interface HeaderFields {
  parentHash: string;
  stateRoot: string;
  transactionsRoot: string;
  receiptsRoot: string;
  logsBloom: string;
  difficulty: string;
  number: string;
  gasLimit: string;
  gasUsed: string;
  timestamp: string;
  extraData: string;
  mixHash: string;
  nonce: string;
  baseFeePerGas: string;
  withdrawalsRoot: string;
}

/** A transaction object as eth_getTransactionByHash answers it. */
export interface TransactionFields {
  type: string;
  to: string | null;
  nonce: string;
  gas: string;
  input: string;
  value: string;
  chainId?: string;
  gasPrice?: string;
  maxFeePerGas?: string;
  maxPriorityFeePerGas?: string;
  accessList?: AccessListish;
  v?: string;
  r: string;
  s: string;
}

/** A hex value as whole bytes, leading zero digits kept: `0x0` is one zero byte, `0x1a2` is 0x01a2. */
function bytes(hex: string): string {
  const digits = hex.slice(2);
  return digits.length % 2 ? `0x0${digits}` : hex;
}

function headerList(h: HeaderFields): string[] {
  return [
    h.parentHash,
    EMPTY_OMMERS_HASH,
    NODE_REWARD_ACCOUNT,
    h.stateRoot,
    h.transactionsRoot,
    h.receiptsRoot,
    h.logsBloom,
    h.difficulty,
    h.number,
    h.gasLimit,
    h.gasUsed,
    h.timestamp,
    h.extraData,
    h.mixHash,
    h.nonce,
    h.baseFeePerGas,
    h.withdrawalsRoot,
  ].map(bytes);
}

export function rawHeader(block: HeaderFields): string {
  return encodeRlp(headerList(block));
}

/** The header, the transactions (each one's envelope as a byte string), no ommers and no withdrawals. */
export function rawBlock(block: HeaderFields & { transactions: TransactionFields[] }): string {
  const body: RlpStructuredData[] = [block.transactions.map(rawTransaction), [], []];
  return encodeRlp([...headerList(block), ...body]);
}

/** An empty or zero signature value (a synthetic transaction's) is 32 zero bytes. */
function signatureWord(value: string): string {
  return value === '0x' || value === '0x0' ? ZERO_32 : `0x${value.slice(2).padStart(64, '0')}`;
}

/** The signed envelope the transaction object describes. */
export function rawTransaction(tx: TransactionFields): string {
  const type = Number(tx.type);
  const out = new Transaction();
  out.type = type;
  out.to = tx.to;
  out.nonce = Number(tx.nonce);
  out.gasLimit = BigInt(tx.gas);
  out.data = tx.input;
  out.value = BigInt(tx.value);
  out.chainId = tx.chainId ? BigInt(tx.chainId) : 0n;
  if (type === 2 || type === 4) {
    out.maxFeePerGas = BigInt(tx.maxFeePerGas ?? 0);
    out.maxPriorityFeePerGas = BigInt(tx.maxPriorityFeePerGas ?? 0);
  } else {
    out.gasPrice = BigInt(tx.gasPrice ?? 0);
  }
  if (type !== 0) out.accessList = tx.accessList ?? [];
  // A synthetic legacy transaction, whose signature is empty, is encoded unsigned (without EIP-155's chain id).
  if (out.isLegacy() && tx.r === '0x' && tx.s === '0x') return out.unsignedSerialized;
  out.signature = Signature.from({ r: signatureWord(tx.r), s: signatureWord(tx.s), v: Number(tx.v ?? '0x0') });
  return out.serialized;
}
