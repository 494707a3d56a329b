"""A computation cut short by a signal unwinds without lines of its own.

cypari2 warns "leaked N bytes on the PARI stack" when an exception leaves a PARI call before PARI
freed its stack.  In a command only a signal does that, the memory goes with the process, and the
one line the signal promises would become three.  Standard library only: the entry points call it
before their slow imports.
"""
import warnings


def quiet_unwinding() -> None:
    warnings.filterwarnings("ignore", message=r"cypari2 leaked \d+ bytes on the PARI stack", category=RuntimeWarning)
