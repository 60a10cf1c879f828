/**
 * The ledger's superusers: the treasury 0.0.2 and the system admin 0.0.50 pay no transaction fees.
 *
 * Followed: hedera-services, hedera-app `AuthorizerImpl.isSuperUser` (payer number equals `accounts.treasury` or
 * `accounts.systemAdmin`) and `DispatchProcessor.chargePayer`, which returns `Fees.FREE` when
 * `authorizer.hasWaivedFees(payer, ...)`; before it, the mono service's `StandardExemptions.hasExemptPayer`
 * (`isAlwaysExempt`: treasury or systemAdmin), which precheck also honours (`VERIFIED_EXEMPT`: no solvency or
 * offered-fee check). So such a payer's record carries no fee transfers and a `transactionFee` of 0. Gas an EVM
 * execution burns is not a transaction fee and is still paid.
 */
export const TREASURY_ACCOUNT = '0.0.2';
export const SYSTEM_ADMIN_ACCOUNT = '0.0.50';

export function isFeeExempt(payer: string): boolean {
  return payer === TREASURY_ACCOUNT || payer === SYSTEM_ADMIN_ACCOUNT;
}

/** The fee a payer is charged: none for a superuser. */
export function payerFee(payer: string, feeTinybar: bigint): bigint {
  return isFeeExempt(payer) ? 0n : feeTinybar;
}
