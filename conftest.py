"""Set-up for every test `make test` collects: tests/, the chapters, and each scheme folder's tests/.

The committed chapters and the schemes' outputs are compared against the reference measurement file,
so a COSTBOOK_MEASUREMENTS left in the environment (e.g. by `make book`) must not leak into the tests
or into the kernels that nbval starts.
"""
import os

os.environ.pop("COSTBOOK_MEASUREMENTS", None)
