/**
 * Most new blocks one poll of a filter or feed takes in; a follower further behind catches up over several polls, in
 * order. On its own so the config can require a log range bound that one poll fits in.
 */
export const MAX_BLOCKS_PER_POLL = 100;
