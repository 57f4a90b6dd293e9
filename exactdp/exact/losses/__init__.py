"""Privacy losses: of one output, the largest over every output, and the worst output of a pair."""
