"""One module per ``tersh`` subcommand: ``add_arguments(parser, name)`` and ``main(args, name)``."""
