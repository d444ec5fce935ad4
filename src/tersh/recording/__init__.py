"""What tersh keeps: captures, the calls ledger and its spool, the status file, the redactor."""
