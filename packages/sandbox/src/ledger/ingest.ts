/**
 * A consensus node's ingest of one signed transaction: decode, check it as a real node's precheck does
 * (node account, validity window, payer, payer's signature), then hand it to the chain by type.
 * Returns the precheck status name; any malformed input yields a status, never an exception.
 */
import { PublicKey } from '@hashgraph/sdk';
import { proto } from '@hashgraph/proto';
import { MAX_GAS_PER_TRANSACTION, type LedgerChain, type Submission } from './chain.js';
import { idOf, toBigInt, transactionHash, transactionIdOf } from './hapi.js';
import { completingKey, isHollow, resolveExisting } from './aliases.js';
import { CONTRACT_METHODS, decodeContract } from './contracts.js';
import { NATIVE_METHODS, decodeNative } from './native.js';
import { oversizeForKind, oversizeOnTheWire } from './sizeLimits.js';
import type { LedgerAccount } from './view.js';

/** The gRPC method each transaction type must arrive on. */
const METHOD_FOR_BODY: Record<string, string> = {
  ethereumTransaction: 'callEthereum',
  fileCreate: 'createFile',
  fileAppend: 'appendContent',
  fileDelete: 'deleteFile',
  ...NATIVE_METHODS,
  ...CONTRACT_METHODS,
};

/** Leeway for clients whose clock runs ahead of the node's (the SDK backdates valid start a little). */
const FUTURE_LEEWAY_SECONDS = 10n;
const MAX_VALID_DURATION_SECONDS = 180n;

interface Decoded {
  signedBytes: Uint8Array;
  /** Exactly as signed: signatures are checked over these bytes, never over a re-encoding. */
  bodyBytes: Uint8Array;
  body: proto.TransactionBody;
  sigMap: proto.ISignatureMap | null | undefined;
}

function decode(bytes: Uint8Array): Decoded | string {
  let tx: proto.Transaction;
  try {
    tx = proto.Transaction.decode(bytes);
  } catch {
    return 'INVALID_TRANSACTION';
  }
  try {
    if (tx.signedTransactionBytes?.length) {
      const signed = proto.SignedTransaction.decode(tx.signedTransactionBytes);
      const bodyBytes = signed.bodyBytes ?? new Uint8Array();
      return { signedBytes: tx.signedTransactionBytes, bodyBytes, body: proto.TransactionBody.decode(bodyBytes), sigMap: signed.sigMap };
    }
    // The deprecated form, with body bytes and signatures on the Transaction itself.
    if (tx.bodyBytes?.length) return { signedBytes: bytes, bodyBytes: tx.bodyBytes, body: proto.TransactionBody.decode(tx.bodyBytes), sigMap: tx.sigMap };
  } catch {
    return 'INVALID_TRANSACTION_BODY';
  }
  return 'INVALID_TRANSACTION_BODY';
}

/** Whether some signature in the map is the key's valid signature over the body bytes. */
function signedBy(key: PublicKey, bodyBytes: Uint8Array, sigMap: proto.ISignatureMap | null | undefined): boolean {
  const raw = Buffer.from(key.toBytesRaw());
  return (sigMap?.sigPair ?? []).some((pair) => {
    const prefix = Buffer.from(pair.pubKeyPrefix ?? []);
    if (!raw.subarray(0, prefix.length).equals(prefix)) return false;
    const signature = key.type === 'ED25519' ? pair.ed25519 : pair.ECDSASecp256k1;
    if (!signature?.length) return false;
    try {
      return key.verify(bodyBytes, signature);
    } catch {
      return false;
    }
  });
}

export async function ingest(chain: LedgerChain, method: string, bytes: Uint8Array): Promise<string> {
  if (oversizeOnTheWire(bytes.length, chain.jumboTransactions)) return 'TRANSACTION_OVERSIZE';
  const decoded = decode(bytes);
  if (typeof decoded === 'string') return decoded;
  const { body, bodyBytes, signedBytes, sigMap } = decoded;
  if (body.data && oversizeForKind(bytes.length, body.data)) return 'TRANSACTION_OVERSIZE';
  const transactionId = transactionIdOf(body.transactionID);
  if (!transactionId) return 'INVALID_TRANSACTION_ID';
  if (idOf(body.nodeAccountID) !== chain.nodeAccountId) return 'INVALID_NODE_ACCOUNT';
  const now = BigInt(Math.floor(Date.now() / 1000));
  const start = toBigInt(body.transactionID!.transactionValidStart!.seconds);
  const duration = toBigInt(body.transactionValidDuration?.seconds);
  if (duration <= 0n || duration > MAX_VALID_DURATION_SECONDS) return 'INVALID_TRANSACTION_DURATION';
  if (start > now + FUTURE_LEEWAY_SECONDS) return 'INVALID_TRANSACTION_START';
  if (start + duration < now) return 'TRANSACTION_EXPIRED';
  const payer = idOf(body.transactionID!.accountID)!;
  const payerAccount = chain.account(payer);
  // A hollow account required to sign (the payer or another) signs with the ECDSA key its EVM address comes from,
  // which completes it (HIP-583; hedera-services' PreHandleContextImpl requires a hollow account's signature by its
  // EVM address and HollowAccountCompletions finalizes every one that gave it).
  const completesHollow = new Map<string, PublicKey>();
  const signingKey = (account: LedgerAccount): PublicKey | undefined => {
    const known = chain.accountKey(account.id);
    if (!isHollow(account, known)) return known;
    const completing = completingKey(account, sigMap, bodyBytes);
    if (completing) completesHollow.set(account.id, completing);
    return completing;
  };
  if (!payerAccount) return 'PAYER_ACCOUNT_NOT_FOUND';
  const key = signingKey(payerAccount);
  if (!key) return isHollow(payerAccount, undefined) ? 'INVALID_SIGNATURE' : 'PAYER_ACCOUNT_NOT_FOUND';
  if (!signedBy(key, bodyBytes, sigMap)) return 'INVALID_SIGNATURE';

  const kind = body.data;
  if (!kind || !(kind in METHOD_FOR_BODY)) return 'NOT_SUPPORTED';
  if (METHOD_FOR_BODY[kind] !== method) return 'INVALID_TRANSACTION_BODY';
  const s: Submission = { transactionId, payer, hash: transactionHash(signedBytes), maxFeeTinybar: toBigInt(body.transactionFee), completesHollow };
  if (kind in NATIVE_METHODS) {
    const native = decodeNative(body);
    if (typeof native === 'string') return native;
    for (const ref of native.signers) {
      const account = resolveExisting(chain, ref);
      if (!account) return 'INVALID_ACCOUNT_ID';
      const signer = account.id === payer ? key : signingKey(account);
      if (!signer || !signedBy(signer, bodyBytes, sigMap)) return 'INVALID_SIGNATURE';
    }
    if (!native.keys.every((k) => signedBy(k, bodyBytes, sigMap))) return 'INVALID_SIGNATURE';
    for (const { token, role } of native.tokenKeys ?? []) {
      const tokenKey = chain.tokenKey(token, role);
      if (tokenKey === null || (tokenKey && !signedBy(tokenKey, bodyBytes, sigMap))) return 'INVALID_SIGNATURE';
    }
    return chain.submitNative(s, native.work);
  }
  if (kind in CONTRACT_METHODS) {
    const work = decodeContract(body, MAX_GAS_PER_TRANSACTION);
    return typeof work === 'string' ? work : chain.submitContract(s, work);
  }
  switch (kind) {
    case 'ethereumTransaction': {
      const e = body.ethereumTransaction!;
      const callDataFileId = e.callData ? idOf(e.callData) : undefined;
      if (e.callData && !callDataFileId) return 'INVALID_FILE_ID';
      return chain.submitEthereumTransaction({
        ...s,
        ethereumData: e.ethereumData ?? new Uint8Array(),
        callDataFileId,
        maxGasAllowanceTinybar: toBigInt(e.maxGasAllowance),
      });
    }
    case 'fileCreate':
      return chain.createFile({ ...s, contents: body.fileCreate!.contents ?? new Uint8Array() });
    case 'fileAppend': {
      const fileId = idOf(body.fileAppend!.fileID);
      return fileId ? chain.appendFile({ ...s, fileId, contents: body.fileAppend!.contents ?? new Uint8Array() }) : 'INVALID_FILE_ID';
    }
    case 'fileDelete': {
      const fileId = idOf(body.fileDelete!.fileID);
      return fileId ? chain.deleteFile({ ...s, fileId }) : 'INVALID_FILE_ID';
    }
  }
  return 'NOT_SUPPORTED';
}
