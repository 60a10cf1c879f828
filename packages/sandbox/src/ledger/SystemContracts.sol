// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

/**
 * The ledger's system contracts as EVM code for the sandbox (compiled by scripts/compile-system-contracts.ts).
 *
 * HtsSystemContract sits at 0x167 (the token service, HIP-206) and is also the code of every token: a token's
 * long-zero address holds an EIP-7702 delegation designator to 0x167, which is what the network's relay answers for
 * a token's eth_getCode, so a call to a token runs this code in the token's own storage (the HIP-218/HIP-376 ERC-20
 * and ERC-721 facade). The sandbox writes each token's storage from the ledger's token state (systemContracts.ts),
 * and reads the facade's Transfer/Approval events and allowances back into it after each block.
 *
 * Statuses are the ledger's: calls to 0x167 answer (int64 responseCode, ...) with SUCCESS = 22; a facade call the
 * ledger would refuse reverts with the status name as its reason.
 */
contract HtsSystemContract {
    address internal constant HTS = address(0x167);
    int64 internal constant SUCCESS = 22;
    int64 internal constant INVALID_TOKEN_ID = 167;

    uint256 internal constant IS_TOKEN = 1;
    uint256 internal constant IS_NFT = 2;
    uint256 internal constant HAS_KYC_KEY = 4;
    uint256 internal constant HAS_FREEZE_KEY = 8;
    uint256 internal constant FREEZE_DEFAULT = 16;

    uint256 internal constant ASSOCIATED = 1;
    uint256 internal constant KYC_GRANTED = 2;
    uint256 internal constant FROZEN = 4;

    // A token's storage, in the token's own context. Layout is shared with systemContracts.ts: keep slots in step.
    string internal _name; // slot 0
    string internal _symbol; // slot 1
    uint256 internal _decimals; // slot 2
    uint256 internal _flags; // slot 3
    uint256 internal _totalSupply; // slot 4
    mapping(address => uint256) internal _balances; // slot 5 (NFTs: serials owned)
    mapping(address => mapping(address => uint256)) internal _allowances; // slot 6
    mapping(address => uint256) internal _relations; // slot 7
    mapping(uint256 => address) internal _owners; // slot 8
    mapping(uint256 => address) internal _approved; // slot 9
    mapping(address => mapping(address => bool)) internal _operators; // slot 10
    mapping(uint256 => string) internal _metadata; // slot 11
    // 0x167's own storage: each token's _flags, by its address. The network prices a token view at a fixed gas
    // (hiero-consensus-node IsTokenCall charges SystemContractGasCalculator.viewGasRequirement(), from TOKEN_INFO's
    // canonical price, a few thousand gas), so one storage read here: asking the token itself (its code, a call, two
    // storage reads) cost about three times as much and ran a contract's isToken out of rpc_batch3's 30,000-gas eth_call.
    mapping(address => uint256) internal _tokenFlags; // slot 12
    // Token creation from the EVM (HIP-358), in 0x167's own storage: the ledger's next entity number, each known
    // account's addresses, and the creation fee in weibar; the sandbox writes them before every block.
    uint256 internal _nextEntityNum; // slot 13
    mapping(address => uint256) internal _accounts; // slot 14
    uint256 internal _createFeeWeibar; // slot 15

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);
    event ApprovalForAll(address indexed owner, address indexed operator, bool approved);

    // ERC-721 indexes the serial too: Transfer(address,address,uint256) and Approval(address,address,uint256) with
    // three indexed arguments, which Solidity cannot declare beside the ERC-20 events of the same signature.
    bytes32 internal constant TRANSFER_SIG = keccak256("Transfer(address,address,uint256)");
    bytes32 internal constant APPROVAL_SIG = keccak256("Approval(address,address,uint256)");

    function _logNft(bytes32 sig, address a, address b, uint256 serial) internal {
        assembly {
            log4(0, 0, sig, a, b, serial)
        }
    }

    /// Value sent to a system contract other than with a token creation: an executed transaction that does so fails
    /// with INVALID_CONTRACT_ID (the ledger reads that from its trace, systemContractCalls.ts); an eth_call reverts here.
    modifier noValue() {
        require(msg.value == 0, "INVALID_FEE_SUBMITTED");
        _;
    }

    modifier onlyToken() {
        require(address(this) != HTS && _flags & IS_TOKEN != 0, "NOT_SUPPORTED");
        _;
    }

    // ----- the facade (a token's address) -----

    function name() external view onlyToken returns (string memory) {
        return _name;
    }

    function symbol() external view onlyToken returns (string memory) {
        return _symbol;
    }

    function decimals() external view onlyToken returns (uint8) {
        return uint8(_decimals);
    }

    function totalSupply() external view onlyToken returns (uint256) {
        return _totalSupply;
    }

    function balanceOf(address account) external view onlyToken returns (uint256) {
        return _balances[account];
    }

    function allowance(address owner, address spender) external view onlyToken returns (uint256) {
        return _allowances[owner][spender];
    }

    function ownerOf(uint256 serial) external view onlyToken returns (address) {
        address owner = _owners[serial];
        require(owner != address(0), "INVALID_TOKEN_NFT_SERIAL_NUMBER");
        return owner;
    }

    /// HIP-218: an NFT's tokenURI is its metadata.
    function tokenURI(uint256 serial) external view onlyToken returns (string memory) {
        require(_owners[serial] != address(0), "INVALID_TOKEN_NFT_SERIAL_NUMBER");
        return _metadata[serial];
    }

    function getApproved(uint256 serial) external view onlyToken returns (address) {
        require(_owners[serial] != address(0), "INVALID_TOKEN_NFT_SERIAL_NUMBER");
        return _approved[serial];
    }

    function isApprovedForAll(address owner, address operator) external view onlyToken returns (bool) {
        return _operators[owner][operator];
    }

    /// HIP-719: whether the caller is associated with this token.
    function isAssociated() external view onlyToken returns (bool) {
        return _relations[msg.sender] & ASSOCIATED != 0;
    }

    function transfer(address to, uint256 amount) external onlyToken returns (bool) {
        require(_flags & IS_NFT == 0, "NOT_SUPPORTED");
        _moveFungible(msg.sender, to, amount);
        return true;
    }

    /// ERC-20 approve(spender, amount), or ERC-721 approve(spender, serial): the same selector, told apart by type.
    function approve(address spender, uint256 value) external onlyToken returns (bool) {
        if (_flags & IS_NFT == 0) {
            _usable(msg.sender);
            _allowances[msg.sender][spender] = value;
            emit Approval(msg.sender, spender, value);
        } else {
            address owner = _owners[value];
            require(owner != address(0), "INVALID_TOKEN_NFT_SERIAL_NUMBER");
            require(owner == msg.sender || _operators[owner][msg.sender], "SENDER_DOES_NOT_OWN_NFT_SERIAL_NO");
            _approved[value] = spender;
            _logNft(APPROVAL_SIG, owner, spender, value);
        }
        return true;
    }

    function setApprovalForAll(address operator, bool approved) external onlyToken {
        require(_flags & IS_NFT != 0, "NOT_SUPPORTED");
        _usable(msg.sender);
        _operators[msg.sender][operator] = approved;
        emit ApprovalForAll(msg.sender, operator, approved);
    }

    /// ERC-20 transferFrom(from, to, amount), or ERC-721 transferFrom(from, to, serial).
    function transferFrom(address from, address to, uint256 value) external onlyToken returns (bool) {
        if (_flags & IS_NFT == 0) {
            if (from != msg.sender) {
                uint256 allowed = _allowances[from][msg.sender];
                require(allowed != 0, "SPENDER_DOES_NOT_HAVE_ALLOWANCE");
                require(allowed >= value, "AMOUNT_EXCEEDS_ALLOWANCE");
                _allowances[from][msg.sender] = allowed - value;
            }
            _moveFungible(from, to, value);
        } else {
            address owner = _owners[value];
            require(owner != address(0), "INVALID_NFT_ID");
            require(owner == from, "SENDER_DOES_NOT_OWN_NFT_SERIAL_NO");
            require(
                from == msg.sender || _approved[value] == msg.sender || _operators[from][msg.sender],
                "SPENDER_DOES_NOT_HAVE_ALLOWANCE"
            );
            _usable(from);
            _usable(to);
            _owners[value] = to;
            delete _approved[value];
            _balances[from] -= 1;
            _balances[to] += 1;
            _logNft(TRANSFER_SIG, from, to, value);
        }
        return true;
    }

    function _usable(address account) internal view {
        uint256 r = _relations[account];
        require(r & ASSOCIATED != 0, "TOKEN_NOT_ASSOCIATED_TO_ACCOUNT");
        require(r & FROZEN == 0, "ACCOUNT_FROZEN_FOR_TOKEN");
        require(_flags & HAS_KYC_KEY == 0 || r & KYC_GRANTED != 0, "ACCOUNT_KYC_NOT_GRANTED_FOR_TOKEN");
    }

    function _moveFungible(address from, address to, uint256 amount) internal {
        _usable(from);
        _usable(to);
        require(_balances[from] >= amount, "INSUFFICIENT_TOKEN_BALANCE");
        _balances[from] -= amount;
        _balances[to] += amount;
        emit Transfer(from, to, amount);
    }

    /// What 0x167 asks a token about itself: its flags, and an account's relationship flags.
    function htsTokenState(address account) external view onlyToken returns (uint256 flags, uint256 relation) {
        return (_flags, _relations[account]);
    }

    // ----- 0x167 (IHederaTokenService), read-only calls -----

    function _tokenState(address token, address account) internal view returns (bool found, uint256 flags, uint256 relation) {
        if (token.code.length == 0) return (false, 0, 0);
        (bool ok, bytes memory out) = token.staticcall(abi.encodeCall(this.htsTokenState, (account)));
        if (!ok || out.length != 64) return (false, 0, 0);
        (flags, relation) = abi.decode(out, (uint256, uint256));
        return (true, flags, relation);
    }

    /// The network answers SUCCESS for any address, a token or not (hiero-consensus-node IsTokenCall).
    function isToken(address token) external payable noValue returns (int64 responseCode, bool) {
        return (SUCCESS, _tokenFlags[token] & IS_TOKEN != 0);
    }

    /// TokenType: 0 FUNGIBLE_COMMON, 1 NON_FUNGIBLE_UNIQUE.
    function getTokenType(address token) external payable noValue returns (int64 responseCode, int32) {
        uint256 flags = _tokenFlags[token];
        if (flags & IS_TOKEN == 0) return (INVALID_TOKEN_ID, -1);
        return (SUCCESS, flags & IS_NFT != 0 ? int32(1) : int32(0));
    }

    function isFrozen(address token, address account) external payable noValue returns (int64 responseCode, bool) {
        (bool found, , uint256 relation) = _tokenState(token, account);
        if (!found) return (INVALID_TOKEN_ID, false);
        return (SUCCESS, relation & FROZEN != 0);
    }

    function isKyc(address token, address account) external payable noValue returns (int64 responseCode, bool) {
        (bool found, uint256 flags, uint256 relation) = _tokenState(token, account);
        if (!found) return (INVALID_TOKEN_ID, false);
        return (SUCCESS, flags & HAS_KYC_KEY == 0 || relation & KYC_GRANTED != 0);
    }

    function getTokenDefaultFreezeStatus(address token) external payable noValue returns (int64 responseCode, bool) {
        uint256 flags = _tokenFlags[token];
        if (flags & IS_TOKEN == 0) return (INVALID_TOKEN_ID, false);
        return (SUCCESS, flags & FREEZE_DEFAULT != 0);
    }

    /// A token without a KYC key treats every account as granted (TokenGetInfo's default_kyc_status).
    function getTokenDefaultKycStatus(address token) external payable noValue returns (int64 responseCode, bool) {
        uint256 flags = _tokenFlags[token];
        if (flags & IS_TOKEN == 0) return (INVALID_TOKEN_ID, false);
        return (SUCCESS, flags & HAS_KYC_KEY == 0);
    }

    // ----- 0x167 (IHederaTokenService), token creation (HIP-358) -----

    int64 internal constant INSUFFICIENT_TX_FEE = 9;

    struct KeyValue {
        bool inheritAccountKey;
        address contractId;
        bytes ed25519;
        bytes ECDSA_secp256k1;
        address delegatableContractId;
    }

    struct TokenKey {
        uint256 keyType;
        KeyValue key;
    }

    struct Expiry {
        uint32 second;
        address autoRenewAccount;
        uint32 autoRenewPeriod;
    }

    struct ExpiryV2 {
        int64 second;
        address autoRenewAccount;
        int64 autoRenewPeriod;
    }

    struct HederaToken {
        string name;
        string symbol;
        address treasury;
        string memo;
        bool tokenSupplyType;
        int64 maxSupply;
        bool freezeDefault;
        TokenKey[] tokenKeys;
        Expiry expiry;
    }

    struct HederaTokenV3 {
        string name;
        string symbol;
        address treasury;
        string memo;
        bool tokenSupplyType;
        int64 maxSupply;
        bool freezeDefault;
        TokenKey[] tokenKeys;
        ExpiryV2 expiry;
    }

    /// What a creation's checks read, whichever version of HederaToken it came in.
    struct Creation {
        bytes name;
        bytes symbol;
        address treasury;
        address autoRenewAccount;
        bool finite;
        int64 maxSupply;
        bool freezeDefault;
        uint256 keyTypes;
        int64 initialSupply;
        bool nft;
    }

    function createFungibleToken(HederaToken memory token, uint64 initialTotalSupply, uint32)
        external
        payable
        returns (int64 responseCode, address tokenAddress)
    {
        return _create(_creation(token), int64(initialTotalSupply), false);
    }

    function createFungibleToken(HederaTokenV3 memory token, int64 initialTotalSupply, int32)
        external
        payable
        returns (int64 responseCode, address tokenAddress)
    {
        return _create(_creationV3(token), initialTotalSupply, false);
    }

    function createNonFungibleToken(HederaToken memory token)
        external
        payable
        returns (int64 responseCode, address tokenAddress)
    {
        return _create(_creation(token), 0, true);
    }

    function createNonFungibleToken(HederaTokenV3 memory token)
        external
        payable
        returns (int64 responseCode, address tokenAddress)
    {
        return _create(_creationV3(token), 0, true);
    }

    function _keyTypes(TokenKey[] memory keys) internal pure returns (uint256 types) {
        for (uint256 i = 0; i < keys.length; i++) types |= keys[i].keyType;
    }

    function _creation(HederaToken memory t) internal pure returns (Creation memory c) {
        c.name = bytes(t.name);
        c.symbol = bytes(t.symbol);
        c.treasury = t.treasury;
        c.autoRenewAccount = t.expiry.autoRenewAccount;
        c.finite = t.tokenSupplyType;
        c.maxSupply = t.maxSupply;
        c.freezeDefault = t.freezeDefault;
        c.keyTypes = _keyTypes(t.tokenKeys);
    }

    function _creationV3(HederaTokenV3 memory t) internal pure returns (Creation memory c) {
        c.name = bytes(t.name);
        c.symbol = bytes(t.symbol);
        c.treasury = t.treasury;
        c.autoRenewAccount = t.expiry.autoRenewAccount;
        c.finite = t.tokenSupplyType;
        c.maxSupply = t.maxSupply;
        c.freezeDefault = t.freezeDefault;
        c.keyTypes = _keyTypes(t.tokenKeys);
    }

    /// ClassicCreatesCall's FIXED_GAS_COST: what a creation call costs in gas, whatever its outcome.
    uint256 internal constant CREATE_GAS = 100_000;

    /// Spends the call's gas down to `floor`, so that the call costs CREATE_GAS as on the network.
    function _spendTo(uint256 floor) internal view {
        while (gasleft() > floor) {}
    }

    /// A failed check reverts with the status name as raw bytes, as the network's revertResult(status) does.
    function _revertWith(bytes memory status, uint256 floor) internal view {
        _spendTo(floor);
        assembly {
            revert(add(status, 32), mload(status))
        }
    }

    /**
     * hiero-consensus-node ClassicCreatesCall: a value below the fee (the HAPI TokenCreate price plus 20%, less the
     * gas) answers INSUFFICIENT_TX_FEE; a missing symbol or an unknown treasury reverts; then TokenCreateHandler's
     * checks, and the new token's address. The fee and the token itself are taken into the ledger after the block
     * (systemContractCalls.ts): the value stays the caller's, less the fee, as the network only collects the fee.
     * Every outcome costs CREATE_GAS, as ClassicCreatesCall charges.
     * Key bits (IHederaTokenService.TokenKey): 1 admin, 4 freeze, 16 supply.
     */
    function _create(Creation memory c, int64 initialSupply, bool nft) internal returns (int64, address) {
        // The call's own decoding has run already: a little more than CREATE_GAS in all, never less.
        uint256 floor = gasleft() > CREATE_GAS ? gasleft() - CREATE_GAS : 0;
        if (msg.value < _createFeeWeibar) {
            _spendTo(floor);
            return (INSUFFICIENT_TX_FEE, address(0));
        }
        if (c.symbol.length == 0) _revertWith("MISSING_TOKEN_SYMBOL", floor);
        if (_accounts[c.treasury] == 0) _revertWith("INVALID_ACCOUNT_ID", floor);
        if (c.name.length == 0) _revertWith("MISSING_TOKEN_NAME", floor);
        if (c.autoRenewAccount != address(0) && _accounts[c.autoRenewAccount] == 0) _revertWith("INVALID_AUTORENEW_ACCOUNT", floor);
        if (nft && c.keyTypes & 16 == 0) _revertWith("TOKEN_HAS_NO_SUPPLY_KEY", floor);
        if (initialSupply < 0) _revertWith("INVALID_TOKEN_INITIAL_SUPPLY", floor);
        if (c.finite && c.maxSupply <= 0) _revertWith("INVALID_TOKEN_MAX_SUPPLY", floor);
        if (c.finite && initialSupply > c.maxSupply) _revertWith("INVALID_TOKEN_INITIAL_SUPPLY", floor);
        if (c.freezeDefault && c.keyTypes & 4 == 0) _revertWith("TOKEN_HAS_NO_FREEZE_KEY", floor);
        uint256 num = _nextEntityNum;
        _nextEntityNum = num + 1;
        _spendTo(floor);
        return (SUCCESS, address(uint160(num)));
    }

    /// A call without data (or value) is a no-op, as the network answers it; an unknown function reverts.
    fallback() external payable noValue {
        require(msg.data.length == 0, "NOT_SUPPORTED");
    }
}

/// The checks every system contract makes before its function runs.
abstract contract SystemContract {
    modifier noValue() {
        require(msg.value == 0, "INVALID_FEE_SUBMITTED");
        _;
    }

    fallback() external payable noValue {
        require(msg.data.length == 0, "NOT_SUPPORTED");
    }
}

/**
 * 0x168 (HIP-475): conversions at the ledger's current exchange rate, which the sandbox writes into 0x168's slots 0
 * and 1. The rate is read from 0x168 itself, so a DELEGATECALL (which runs in the caller's storage) converts alike.
 */
contract ExchangeRateSystemContract is SystemContract {
    address payable internal constant EXCHANGE_RATE = payable(address(0x168));
    uint256 internal _hbarEquiv; // slot 0
    uint256 internal _centEquiv; // slot 1

    function currentRate() external view returns (uint256 hbarEquiv, uint256 centEquiv) {
        return (_hbarEquiv, _centEquiv);
    }

    function tinycentsToTinybars(uint256 tinycents) external payable noValue returns (uint256) {
        (uint256 hbarEquiv, uint256 centEquiv) = ExchangeRateSystemContract(EXCHANGE_RATE).currentRate();
        return (tinycents * hbarEquiv) / centEquiv;
    }

    function tinybarsToTinycents(uint256 tinybars) external payable noValue returns (uint256) {
        (uint256 hbarEquiv, uint256 centEquiv) = ExchangeRateSystemContract(EXCHANGE_RATE).currentRate();
        return (tinybars * centEquiv) / hbarEquiv;
    }
}

/// 0x169 (HIP-351): a pseudorandom 32-byte seed; the sandbox derives it from the block's randomness.
contract PrngSystemContract is SystemContract {
    function getPseudorandomSeed() external payable noValue returns (bytes32) {
        return keccak256(abi.encodePacked(block.prevrandao, block.number));
    }
}
