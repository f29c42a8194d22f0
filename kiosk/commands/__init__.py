"""Sub-commands of the `cacho` command line, one module per game."""
