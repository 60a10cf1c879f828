/** An EVM devnet's starting history: the same ERC-20 deployment, transfers and revert as on the ledger sandbox. */
import { sandboxAccounts } from '../accounts.js';
import type { EvmRequester } from '../ledger/view.js';
import { erc20History } from './erc20.js';

/** Enough for the devnets' 1 gwei base fee and the ledger's 710 gwei alike. */
const MAX_FEE_PER_GAS = 710_000_000_000n;

/** Sends the transactions one by one (the devnet mines each); returns the token's address. */
export async function buildEvmHistory(evm: EvmRequester, chainId: number): Promise<string> {
  const [deployer] = sandboxAccounts(1);
  const nonce = Number(await evm.request({ method: 'eth_getTransactionCount', params: [deployer.address, 'latest'] }));
  const { address, signed } = await erc20History(chainId, nonce, MAX_FEE_PER_GAS);
  for (const raw of signed) await evm.request({ method: 'eth_sendRawTransaction', params: [raw] });
  return address;
}
