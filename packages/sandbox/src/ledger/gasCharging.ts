/**
 * How the network charges an EVM transaction's gas, in tinybar at the network's gas price (the fee schedule's, the
 * figure `/network/fees` reports), whatever price the transaction offers. Modelled on hiero-consensus-node:
 *
 * - `CustomGasCharging.chargeWithRelayer`: the gas cost is gasLimit × network price. A sender offering at least the
 *   network price pays all of it; one offering less (but not zero) pays gasLimit × its offer and the relayer (the
 *   EthereumTransaction's payer) the rest, within its `maxGasAllowance`; an offer of zero leaves it all to the relayer.
 *   The offer is the signed `gasPrice` (legacy, EIP-2930) or `maxFeePerGas` (EIP-1559) in whole tinybars
 *   (`EthTxData.getMaxGasAsBigInteger` divided by 10^10); the tip plays no part.
 * - `FrameRunner.effectiveGasUsed`: the gas charged is at least gasLimit less `contracts.maxRefundPercentOfGasLimit`
 *   percent of it. Networks have set it both ways: 20 (an 80% floor) is `ContractsConfig`'s default, restored by
 *   hiero-consensus-node PR #22164; 100 (the gas used, nothing more) came with HIP-1249's throttle (PR #21384), and is
 *   what the network under the official relay's conformity suites charges (consensus node v0.77: its recorded
 *   receipts show 21,000 and 87,533 gas used of a 250,000 limit).
 * - `CustomGasCharging.maybeRefundGiven`: the unused gas is refunded at the network price, to the relayer first (up to
 *   what it paid), the rest to the sender.
 */
const WEIBAR_PER_TINYBAR = 10n ** 10n;

export interface GasCharges {
  /** Taken up front from the sender, in tinybar. */
  sender: bigint;
  /** Taken up front from the relayer, in tinybar. */
  relayer: bigint;
}

/** The signed offer in whole tinybars per gas. */
export function offeredGasPriceTinybar(tx: { gasPrice: bigint | null; maxFeePerGas: bigint | null }): bigint {
  return (tx.maxFeePerGas ?? tx.gasPrice ?? 0n) / WEIBAR_PER_TINYBAR;
}

/** The up-front gas charges of an EthereumTransaction, split between its sender and its relayer. */
export function upfrontGasCharges(gasLimit: bigint, offeredTinybar: bigint, networkTinybar: bigint): GasCharges {
  const cost = gasLimit * networkTinybar;
  if (offeredTinybar === 0n) return { sender: 0n, relayer: cost };
  if (offeredTinybar >= networkTinybar) return { sender: cost, relayer: 0n };
  const sender = gasLimit * offeredTinybar;
  return { sender, relayer: cost - sender };
}

/** The gas the network charges for an execution that used `used`: at most `maxRefundPercent` of the limit goes back. */
export function chargedGas(gasLimit: bigint, used: bigint, maxRefundPercent: number): bigint {
  const floor = gasLimit - (gasLimit * BigInt(maxRefundPercent)) / 100n;
  return used > floor ? used : floor;
}

/** What each party finally pays once the unused gas is refunded, relayer first. */
export function settledGasCharges(upfront: GasCharges, gasLimit: bigint, charged: bigint, networkTinybar: bigint): GasCharges {
  const refund = (gasLimit - charged) * networkTinybar;
  const relayerRefund = refund < upfront.relayer ? refund : upfront.relayer;
  return { sender: upfront.sender - (refund - relayerRefund), relayer: upfront.relayer - relayerRefund };
}
