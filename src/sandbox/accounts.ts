import { HDNodeWallet, Mnemonic, keccak256, toUtf8Bytes } from 'ethers';

/** The well-known development mnemonic (Hardhat, Anvil): every tool already knows its accounts. */
export const SANDBOX_MNEMONIC = 'test test test test test test test test test test test junk';

/** 10,000 HBAR in weibar: 10^4 HBAR * 10^8 tinybar * 10^10 weibar per tinybar. */
export const PREFUNDED_WEIBAR = 10n ** 22n;

export interface SandboxAccount {
  address: string;
  privateKey: string;
}

let derived: SandboxAccount[] = [];

/** The first `count` accounts of the mnemonic on the usual `m/44'/60'/0'/0/i` path, as `hardhat node` lists them. */
export function sandboxAccounts(count = 10): SandboxAccount[] {
  if (derived.length < count) {
    // Deriving from the phrase runs PBKDF2; do it once and derive children from the account node.
    const root = HDNodeWallet.fromMnemonic(Mnemonic.fromPhrase(SANDBOX_MNEMONIC), "m/44'/60'/0'/0");
    derived = Array.from({ length: count }, (_, i) => {
      const wallet = root.deriveChild(i);
      return { address: wallet.address.toLowerCase(), privateKey: wallet.privateKey };
    });
  }
  return derived.slice(0, count);
}

/**
 * The treasury's (0.0.2, a fee-exempt superuser) ED25519 private key (32 bytes, 0x hex), fixed so that a tool
 * configured once keeps working. Derived from the mnemonic rather than typed in, so it is obviously a development key.
 */
export const TREASURY_ED25519_KEY = keccak256(toUtf8Bytes(`${SANDBOX_MNEMONIC}/ledger-operator`));

/** The relay operator's ED25519 private key: an ordinary account that pays fees, derived the same way. */
export const RELAY_OPERATOR_ED25519_KEY = keccak256(toUtf8Bytes(`${SANDBOX_MNEMONIC}/relay-operator`));
