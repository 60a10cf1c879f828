import { HDNodeWallet, Mnemonic, Wallet, keccak256, toUtf8Bytes } from 'ethers';

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
 * ECDSA accounts the Hiero local node prefunds, whose keys the official relay's repository publishes and its tools and
 * acceptance suites sign with: tests/server/localAcceptance.env (OPERATOR_KEY_MAIN), tools/*-example/.env.example
 * (RECEIVER_PRIVATE_KEY) and tests/server/acceptance/data/conformity/utils/constants.ts (localNodeAccountPrivateKey,
 * the conformity suites' sender 0xc37f417f…). Public test keys, like the mnemonic's.
 */
const LOCAL_NODE_PRIVATE_KEYS = [
  '0x105d050185ccb907fba04dd92d8de9e32c18305e097ab41dadda21489a211524',
  '0x2e1d968b041d84dd120a5860cee60cd83f9374ef527ca86996317ada3d0d03e7',
  '0x6e9d61a325be3f6675cf8b7676c70e4a004d2308e3e182370a41f5653d52c6bd',
];

/**
 * The local node's published accounts, prefunded like the sandbox's own. They come after the mnemonic's accounts and the relay
 * operator, so those keep their account ids; the local node's own ids for them (0.0.1002, ...) are not reproduced.
 */
export function localNodeAccounts(): SandboxAccount[] {
  return LOCAL_NODE_PRIVATE_KEYS.map((privateKey) => ({ address: new Wallet(privateKey).address.toLowerCase(), privateKey }));
}

/**
 * The treasury's (0.0.2, a fee-exempt superuser) ED25519 private key (32 bytes, 0x hex), fixed so that a tool
 * configured once keeps working. Derived from the mnemonic rather than typed in, so it is obviously a development key.
 */
export const TREASURY_ED25519_KEY = keccak256(toUtf8Bytes(`${SANDBOX_MNEMONIC}/ledger-operator`));

/** The relay operator's ED25519 private key: an ordinary account that pays fees, derived the same way. */
export const RELAY_OPERATOR_ED25519_KEY = keccak256(toUtf8Bytes(`${SANDBOX_MNEMONIC}/relay-operator`));
