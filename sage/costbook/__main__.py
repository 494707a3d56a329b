"""``python -m costbook``: the ``costbook`` command."""
import sys

from .cli.launch import main

sys.exit(main())
