"""How the book writes: times, numbers and tables (``report``), and citations (``bibliography``)."""
