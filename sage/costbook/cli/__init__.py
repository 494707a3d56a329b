"""The ``costbook`` command: its entry point (``launch``, standard library only, so that a signal is
one line from the first instruction on) and its subcommands (``commands``)."""
