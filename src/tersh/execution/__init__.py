"""Running a command: the orchestrator, spawning and supervising the child, the rewrite providers."""
