/**
 * The ERC-20/ERC-721 Transfer logs the mirror node's importer makes up for a native token transaction
 * (SyntheticContractLogServiceImpl with TransferContractLog and TransferIndexedContractLog): emitted by the token,
 * naming sender and receiver by EVM address (the account's alias if it has one, else its long-zero address; zero
 * for a mint), the amount as data or the serial as the fourth topic. Fungible moves are paired the importer's way:
 * debits against credits in list order, one log per pairing, a credit without a debit coming from zero.
 */
import { id as eventTopic, zeroPadValue } from 'ethers';
import { entityNum, longZeroAddress } from '../ledger/ids.js';
import type { LedgerTransaction, LedgerView } from '../ledger/view.js';

const TRANSFER = eventTopic('Transfer(address,address,uint256)');
const ZERO = `0x${'0'.repeat(64)}`;

export interface SyntheticLog {
  address: string;
  contract_id: string;
  data: string;
  topics: string[];
}

const word = (v: bigint) => `0x${v.toString(16).padStart(64, '0')}`;

export function syntheticTransferLogs(view: LedgerView, tx: LedgerTransaction): SyntheticLog[] {
  if (tx.ethHash || tx.result !== 'SUCCESS') return [];
  const topicOf = (account: string | null) => (account ? zeroPadValue(view.account(account)?.evmAddress ?? longZeroAddress(entityNum(account)!), 32) : ZERO);
  const log = (token: string, from: string | null, to: string | null, value: bigint, indexed: boolean): SyntheticLog => ({
    address: longZeroAddress(entityNum(token)!),
    contract_id: token,
    data: indexed ? '0x' : word(value),
    topics: [TRANSFER, topicOf(from), topicOf(to), ...(indexed ? [word(value)] : [])],
  });
  const logs: SyntheticLog[] = [];
  const tokens = [...new Set((tx.tokenTransfers ?? []).map((t) => t.token))];
  for (const token of tokens) {
    const moves = (tx.tokenTransfers ?? []).filter((t) => t.token === token);
    const senders = moves.filter((m) => m.amount < 0).map((m) => ({ account: m.account, left: BigInt(-m.amount) }));
    const receivers = moves.filter((m) => m.amount > 0).map((m) => ({ account: m.account, left: BigInt(m.amount) }));
    if (senders.length === 0) {
      for (const r of receivers) logs.push(log(token, null, r.account, r.left, false));
      continue;
    }
    let s = 0;
    let r = 0;
    while (s < senders.length && r < receivers.length) {
      const amount = senders[s].left < receivers[r].left ? senders[s].left : receivers[r].left;
      logs.push(log(token, senders[s].account, receivers[r].account, amount, false));
      senders[s].left -= amount;
      receivers[r].left -= amount;
      if (senders[s].left === 0n) s++;
      if (receivers[r].left === 0n) r++;
    }
  }
  for (const n of tx.nftTransfers ?? []) logs.push(log(n.token, n.sender, n.receiver, BigInt(n.serial), true));
  return logs;
}
