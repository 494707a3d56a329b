"""``python -m costbook``: the ``costbook`` command."""
import sys

from .launch import main

sys.exit(main())
