"""One module per tool family; each declares PROGRAMS (see compaction/README.md) and compacts its output."""
