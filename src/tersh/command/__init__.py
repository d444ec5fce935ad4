"""What a command is and what tersh may do with it.

The shell lexer, quoting, the program's class and the policy.
"""
