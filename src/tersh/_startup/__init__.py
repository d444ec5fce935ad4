"""Start-up replacements the hook and run paths measurably need.

Each is held equal to the real thing by a test.
"""
