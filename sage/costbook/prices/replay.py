"""The interpreter's work of a protocol run: the run replayed with its priced operations answered
from a record.

A step of the book's Sage code is its priced operations (the tallied multiplications, pairings,
additions, serialisations) plus the Python around them: drawing scalars, building the Fiat–Shamir
transcripts, scalar arithmetic, lists, and the few group operations no count prices (a negation, a
product in GT).  A validation that priced the operations only would blame the model for that
interpreter work, as the Merkle tree's did (``backends.interpreter``).  Here it is measured, not
fitted: ``Replay.record`` runs the protocol once and keeps the result of every call of the given
methods that tallied something; ``Replay.replay`` runs the same code again from the same random
state, answering exactly those calls from the record, so what remains is everything the counts do
not price.  A call that tallied nothing (a GT product through the same method as an addition) runs
for real in the replay, since it is interpreter work too.

What a replay cannot tell apart: an operation the code performs but never tallies stays in the
replay's time.  So the share of each step the replay measures is reported beside the error, and
``validation.GLUE_SHARE_LIMIT`` bounds it: a heavy untallied operation shows up as a large share.
"""
from __future__ import annotations

import random
from contextlib import contextmanager
from typing import Callable, Sequence

from .counting import counting


_MISSING = object()


class ReplayDiverged(RuntimeError):
    """The replayed run called the operations in another order than the recorded one."""


class Replay:
    """Record, then replay, the priced calls of ``run(rng)``.

    targets: (object, method name) pairs to intercept, e.g. ``(curve, "g1_mul")``; only the
    outermost intercepted call is recorded (an addition inside a multiplication belongs to it).
    """

    def __init__(self, targets: Sequence[tuple], seed: str):
        self.targets = list(targets)
        self.seed = seed
        self.record_: list = []          # (name, priced, result) of each outermost call, in order

    @contextmanager
    def _patched(self, make_wrapper: Callable):
        originals = []                   # (object, name, its own attribute before, if it had one)
        try:
            for obj, name in self.targets:
                orig = getattr(obj, name)
                originals.append((obj, name, vars(obj).get(name, _MISSING)))
                setattr(obj, name, make_wrapper(name, orig))
            yield
        finally:
            for obj, name, own in reversed(originals):
                if own is _MISSING:
                    delattr(obj, name)       # the class's method shows through again
                else:
                    setattr(obj, name, own)

    def rng(self) -> random.Random:
        """The random state both the recorded and every replayed run start from."""
        return random.Random(self.seed)

    def record(self, run: Callable[[random.Random], object]) -> int:
        """Run once, keeping each outermost intercepted call's result and whether it tallied; returns
        how many calls were recorded."""
        self.record_ = []
        depth = [0]

        def wrapper(name, orig):
            def call(*args, **kwargs):
                if depth[0]:
                    return orig(*args, **kwargs)
                depth[0] += 1
                try:
                    with counting() as c:
                        result = orig(*args, **kwargs)
                finally:
                    depth[0] -= 1
                self.record_.append((name, bool(c), result))
                return result
            return call
        with self._patched(wrapper):
            run(self.rng())
        return len(self.record_)

    def replay(self, run: Callable[[random.Random], object]) -> None:
        """Run again from the same random state; each recorded call that tallied returns its recorded
        result without computing it, the others run."""
        if not self.record_:
            raise RuntimeError("nothing recorded: call record() first")
        position = [0]
        depth = [0]

        def wrapper(name, orig):
            def call(*args, **kwargs):
                if depth[0]:
                    return orig(*args, **kwargs)
                i = position[0]
                if i >= len(self.record_) or self.record_[i][0] != name:
                    expected = self.record_[i][0] if i < len(self.record_) else "the end of the record"
                    raise ReplayDiverged(f"call {i} of the replay is {name}, the record has {expected}")
                position[0] = i + 1
                _, priced, result = self.record_[i]
                if priced:
                    return result
                depth[0] += 1
                try:
                    return orig(*args, **kwargs)
                finally:
                    depth[0] -= 1
            return call
        with self._patched(wrapper):
            run(self.rng())
        if position[0] != len(self.record_):
            raise ReplayDiverged(f"the replay made {position[0]} of the {len(self.record_)} recorded calls")
