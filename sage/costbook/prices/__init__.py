"""What a primitive is and what it costs: the keys (``keys``), measurement files and their schema
(``measurement_schema``, ``measurements``), prices derived from them (``derived``), the backend a
price is taken from (``defaults``), and count vectors priced against a file (``cost``), counted by
running code (``counting``, ``replay``)."""
