// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

contract Greeter {
  event Greeted(address indexed from, string message, uint256 value);
  string public greeting;
  bytes public blob;

  constructor(string memory g, bytes memory b) {
    greeting = g;
    blob = b;
  }

  function greet(string calldata g) external payable {
    greeting = g;
    emit Greeted(msg.sender, g, msg.value);
  }

  function fail() external pure {
    revert("nope");
  }
}
