"""Every operation of ``costbook.groups`` counts itself: a scheme that calls one cannot leave it out
of its tallies.

Read from the source, so that a function added tomorrow is held to it: each public function, public
method and arithmetic operator of a public class in ``costbook/groups/`` either calls
``tally`` (``costbook.prices.counting``), calls a function of its module that does, or is named in its
module's ``UNTALLIED`` with the reason it costs nothing a formula prices.  A decoding that forgot its
tally (a scheme's verify then priced without the subgroup check the decoding makes) fails here,
naming the function and the remedy; the scheme contract then compares the tally with the formula.
"""
from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

GROUPS = Path(__file__).resolve().parents[1] / "sage" / "costbook" / "groups"
MODULES = sorted(p.stem for p in GROUPS.glob("*.py") if p.stem != "__init__")
#: the operators a class of group elements may define; each is a group operation like a method
OPERATORS = {"__add__", "__sub__", "__neg__", "__mul__", "__rmul__", "__pow__", "__truediv__", "__eq__",
             "__call__"}


def _called_names(node) -> set:
    """Names a function calls: f(...), self.f(...), module.f(...)."""
    out = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Call):
            if isinstance(n.func, ast.Name):
                out.add(n.func.id)
            elif isinstance(n.func, ast.Attribute):
                out.add(n.func.attr)
    return out


def operations(source: str) -> dict:
    """{qualified name: set of names it calls} of every public function, public method and operator
    of a public class, and of the private ones (which a public one may delegate to)."""
    ops = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef):
            ops[node.name] = _called_names(node)
        elif isinstance(node, ast.ClassDef):
            for m in node.body:
                if isinstance(m, ast.FunctionDef):
                    ops[f"{node.name}.{m.name}"] = _called_names(m)
    return ops


def is_public(qualified: str) -> bool:
    parts = qualified.split(".")
    if parts[0].startswith("_"):
        return False
    return len(parts) == 1 or not parts[1].startswith("_") or parts[1] in OPERATORS


def tallying(ops: dict) -> set:
    """The operations that tally, directly or through another operation of the module that does."""
    done = {q for q, calls in ops.items() if "tally" in calls}
    while True:
        more = {q for q, calls in ops.items() if q not in done
                and any(q2 in done and q2.split(".")[-1] == name for name in calls for q2 in ops)}
        if not more:
            return done
        done |= more


def untallied_failures(module: str, source: str | None = None) -> list:
    """Every public operation of costbook/groups/<module>.py (or of `source`, a mutated copy of it) that
    neither tallies nor is in the module's UNTALLIED with a reason, and every stale UNTALLIED entry."""
    source = (GROUPS / f"{module}.py").read_text() if source is None else source
    ops = operations(source)
    declared = getattr(importlib.import_module(f"costbook.groups.{module}"), "UNTALLIED", {})
    done = tallying(ops)
    failures = []
    for q in sorted(ops):
        if is_public(q) and q not in done and q not in declared:
            failures.append(f"costbook/groups/{module}.py: {q} neither tallies a key (costbook.prices.counting.tally, "
                            f"the key of its family in costbook.prices.keys) nor says in the module's UNTALLIED why "
                            f"no formula prices it: tally it, or add {q!r}: \"why\" to UNTALLIED")
    for q, why in declared.items():
        if q not in ops or not is_public(q):
            failures.append(f"costbook/groups/{module}.py: UNTALLIED names {q!r}, which is no public operation of "
                            f"the module: remove it")
        elif q in done:
            failures.append(f"costbook/groups/{module}.py: UNTALLIED names {q!r}, which tallies: remove it")
        if not (isinstance(why, str) and len(why.split()) >= 4):
            failures.append(f"costbook/groups/{module}.py: UNTALLIED[{q!r}] must say why in words, got {why!r}")
    return failures


@pytest.mark.parametrize("module", MODULES)
def test_every_group_operation_tallies_or_says_why_not(module):
    failures = untallied_failures(module)
    assert not failures, "\n".join(failures)


def test_a_decoding_that_forgets_its_tally_is_caught():
    source = (GROUPS / "pairing_curves.py").read_text()
    line = '    tally(f"{curve.name}/{group}_decode")\n'
    assert line in source
    failures = untallied_failures("pairing_curves", source.replace(line, ""))
    assert failures == [
        "costbook/groups/pairing_curves.py: decompress neither tallies a key (costbook.prices.counting.tally, the key "
        "of its family in costbook.prices.keys) nor says in the module's UNTALLIED why no formula prices it: tally it, "
        "or add 'decompress': \"why\" to UNTALLIED"]


def test_a_delegating_operation_counts_through_what_it_calls():
    ops = operations("def _raw(x):\n    return x\n\ndef priced(x):\n    tally('k')\n    return _raw(x)\n\n"
                     "def wrapper(x):\n    return priced(x)\n\nclass Point:\n    def __mul__(self, k):\n"
                     "        return wrapper(k)\n    def double(self):\n        return self\n")
    assert tallying(ops) == {"priced", "wrapper", "Point.__mul__"}
    assert sorted(q for q in ops if is_public(q)) == ["Point.__mul__", "Point.double", "priced", "wrapper"]
