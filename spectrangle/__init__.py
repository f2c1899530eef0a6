"""The ``spectrangle`` command: one entry point whose subcommands live in the packages."""
