/** The ledger's wire protocol (HAPI) as the sandbox needs it: status codes, entity and transaction id conversions. */
import { createHash } from 'node:crypto';
import { proto } from '@hashgraph/proto';
import { entityId, entityNum, transactionIdString } from './ids.js';

type Longish = number | { toString(): string } | null | undefined;

export const toBigInt = (v: Longish): bigint => (v == null ? 0n : BigInt(v.toString()));

/** The generated code's int64 type. */
export type Int64 = NonNullable<proto.IAccountID['accountNum']>;
/** An int64 field value: protobufjs encodes decimal strings exactly, also beyond 2^53 (balances in tinybar). */
export const int64 = (v: bigint | number): Int64 => v.toString() as unknown as Int64;

/** A ledger status name as its protobuf code; unknown names become FAIL_INVALID rather than a wrong code. */
export function statusCode(name: string): proto.ResponseCodeEnum {
  const code = (proto.ResponseCodeEnum as unknown as Record<string, number>)[name];
  return code ?? proto.ResponseCodeEnum.FAIL_INVALID;
}

/** `0.0.<num>` from an AccountID/FileID/ContractID/TokenID-shaped message; undefined when not shard 0 realm 0. */
export function idOf(
  msg: { shardNum?: Longish; realmNum?: Longish; accountNum?: Longish; fileNum?: Longish; contractNum?: Longish; tokenNum?: Longish } | null | undefined,
): string | undefined {
  if (!msg || toBigInt(msg.shardNum) !== 0n || toBigInt(msg.realmNum) !== 0n) return undefined;
  const num = msg.accountNum ?? msg.fileNum ?? msg.contractNum ?? msg.tokenNum;
  return num == null ? undefined : entityId(Number(toBigInt(num)));
}

export function accountIdProto(id: string): proto.IAccountID {
  return { shardNum: int64(0), realmNum: int64(0), accountNum: int64(entityNum(id)!) };
}
export function fileIdProto(id: string): proto.IFileID {
  return { shardNum: int64(0), realmNum: int64(0), fileNum: int64(entityNum(id)!) };
}
export function contractIdProto(id: string): proto.IContractID {
  return { shardNum: int64(0), realmNum: int64(0), contractNum: int64(entityNum(id)!) };
}
export function tokenIdProto(id: string): proto.ITokenID {
  return { shardNum: int64(0), realmNum: int64(0), tokenNum: int64(entityNum(id)!) };
}

export function transactionIdOf(id: proto.ITransactionID | null | undefined): string | undefined {
  const payer = idOf(id?.accountID);
  const start = id?.transactionValidStart;
  if (!payer || !start) return undefined;
  return transactionIdString(payer, toBigInt(start.seconds), Number(toBigInt(start.nanos)));
}

/** The inverse of `transactionIdString`. */
export function transactionIdProto(id: string): proto.ITransactionID {
  const [payer, seconds, nanos] = id.split('-');
  return { accountID: accountIdProto(payer), transactionValidStart: { seconds: int64(BigInt(seconds)), nanos: Number(nanos) } };
}

export function timestampProto(ts: string): proto.ITimestamp {
  const [seconds, nanos] = ts.split('.');
  return { seconds: int64(BigInt(seconds)), nanos: Number(nanos) };
}

/** The ledger's transaction hash: SHA-384 of the signed transaction bytes. */
export function transactionHash(signedBytes: Uint8Array): string {
  return `0x${createHash('sha384').update(signedBytes).digest('hex')}`;
}

/** A fixed exchange rate (12 US cents per HBAR), good for a year from now; receipts carry it. */
export function exchangeRateSet(): proto.IExchangeRateSet {
  const expirationTime = { seconds: int64(Math.floor(Date.now() / 1000) + 365 * 86_400) };
  const rate = { hbarEquiv: 1, centEquiv: 12, expirationTime };
  return { currentRate: rate, nextRate: rate };
}
