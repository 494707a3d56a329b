"""Shared test setup.

The committed chapters are compared with nbval against outputs made from the
reference measurement file, so a COSTBOOK_MEASUREMENTS left in the environment
(e.g. by `make book`) must not leak into the kernels that nbval starts.
"""
import os

os.environ.pop("COSTBOOK_MEASUREMENTS", None)

# Notebooks under tests/fixtures are inputs of the renderer's tests, not chapters.
collect_ignore_glob = ["fixtures/*"]
