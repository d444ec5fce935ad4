"""tersh as an MCP server: the protocol server and its tool bodies."""
