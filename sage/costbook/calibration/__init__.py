"""How far an estimate can be trusted: validation runs against the model (``validation``), the
evidence they leave (``calibrate``, ``uncertainty``), and the intervals printed beside every estimate
(``intervals``, ``prediction``)."""
