/**
 * The ERC-20 part of the sandboxes' starting history, the same on the ledger sandbox and on every EVM devnet: the
 * first prefunded account deploys SandboxToken (minting the supply to itself), sends some to the next two accounts,
 * and tries to send more than it has, which reverts. Signed as any wallet would sign them.
 */
import { ContractFactory, Interface, Wallet, getCreateAddress, parseUnits } from 'ethers';
import { sandboxAccounts } from '../accounts.js';
import { SANDBOX_TOKEN_ABI, SANDBOX_TOKEN_BYTECODE } from './sandboxToken.js';

export const ERC20_NAME = 'Sandbox Token';
export const ERC20_SYMBOL = 'SBX';
export const ERC20_SUPPLY = parseUnits('1000000', 18);
/** What the two transfers send to prefunded accounts 1 and 2. */
export const ERC20_TRANSFERS = [parseUnits('1000', 18), parseUnits('250', 18)] as const;
const DEPLOY_GAS = 1_500_000n;
const CALL_GAS = 100_000n;

export interface Erc20History {
  /** The token's address (fixed by the deployer and its nonce). */
  address: string;
  /** Raw signed transactions, to be sent in this order. */
  signed: string[];
}

/**
 * The four transactions, from the deployer's current nonce. `maxFeePerGas` must cover the chain's gas price (the
 * ledger's is 710 gwei); no tip is offered.
 */
export async function erc20History(chainId: number, nonce: number, maxFeePerGas: bigint): Promise<Erc20History> {
  const [deployer, first, second] = sandboxAccounts(3);
  const wallet = new Wallet(deployer.privateKey);
  const token = new Interface(SANDBOX_TOKEN_ABI);
  const deploy = await new ContractFactory(token, SANDBOX_TOKEN_BYTECODE).getDeployTransaction(ERC20_NAME, ERC20_SYMBOL, ERC20_SUPPLY);
  const address = getCreateAddress({ from: deployer.address, nonce }).toLowerCase();
  const calls = [
    { data: deploy.data, gasLimit: DEPLOY_GAS },
    { to: address, data: token.encodeFunctionData('transfer', [first.address, ERC20_TRANSFERS[0]]), gasLimit: CALL_GAS },
    { to: address, data: token.encodeFunctionData('transfer', [second.address, ERC20_TRANSFERS[1]]), gasLimit: CALL_GAS },
    // More than the deployer still holds: reverts with the token's reason.
    { to: address, data: token.encodeFunctionData('transfer', [first.address, ERC20_SUPPLY]), gasLimit: CALL_GAS },
  ];
  const signed = await Promise.all(
    calls.map((call, i) => wallet.signTransaction({ ...call, type: 2, chainId, nonce: nonce + i, maxFeePerGas, maxPriorityFeePerGas: 0n })),
  );
  return { address, signed };
}
