"""Message Batches: a bulk upload's model work sent as batches (half the price, answers within
24 hours) instead of one interactive call per draft and per group of checks."""
