"""Start-up replacements the hook and run paths measurably need.

Each is held equal to the real thing by a test. ``collector`` is the one start-up trick that
replaces nothing: the command line's pause of the garbage collector (tests/test_execute.py).
"""
