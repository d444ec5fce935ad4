"""The verifier: the facts an output carries and whether a compaction keeps them all."""
