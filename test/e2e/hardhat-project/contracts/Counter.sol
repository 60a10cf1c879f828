// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Stores a value, emits an event with indexed topics, takes value and reverts with a reason: what the e2e tests need.
contract Counter {
  event Set(address indexed by, uint256 indexed value, uint256 paid);

  uint256 public value;

  function set(uint256 v) external payable {
    value = v;
    emit Set(msg.sender, v, msg.value);
  }

  function fail() external pure {
    revert("Counter: always fails");
  }
}
