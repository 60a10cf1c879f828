// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/** Called by Outer: stores a value, takes HBAR, and refuses values of 100 or more. */
contract Inner {
  uint256 public stored;

  function set(uint256 v) external payable returns (uint256) {
    require(v < 100, "too big");
    stored = v;
    return v * 2;
  }
}

/** A contract that calls another contract, passing on the value it was sent, or reads it. */
contract Outer {
  Inner public inner;

  constructor(Inner i) {
    inner = i;
  }

  function go(uint256 v) external payable returns (uint256) {
    return inner.set{value: msg.value}(v) + 1;
  }

  /** Reads Inner's state through a view (a STATICCALL frame) in a transaction. */
  function peek() external returns (uint256) {
    return inner.stored() + 1;
  }
}
