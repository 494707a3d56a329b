"""Timing primitives on this machine: the harness (``harness``), each backend's benchmarks
(``backends``), ``costbook measure`` and its profiles (``measure``, ``priced``), and how far two
measurements of one machine agree (``measure_agreement``)."""
