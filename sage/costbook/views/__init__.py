"""Views across schemes and machines: the schemes side by side (``compare``), the reproduction
ledger (``ledger``), the machines of appendix B (``machines``), and zkalc's benchmark files in and
out, completed from the reference machine (``zkalc``, ``zkalc_commands``, ``public``)."""
