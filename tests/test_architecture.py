"""The library's shape, checked from its source.

* Imports run one way: no import circle; nothing under ``costbook.backends``, ``costbook.groups`` or
  the core modules imports ``costbook.schemes``; no scheme imports another scheme.
* Every registered scheme follows the contract of ``docs/adding-a-scheme.md``.

The import graph is read with ``ast`` (every ``import`` statement, also those inside functions:
a lazy import is still a dependency), so the check needs no import of the code it checks.
"""
from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
from pathlib import Path

import pytest

LIBRARY = Path(__file__).resolve().parents[1] / "sage"
PACKAGE = "costbook"

#: Entry points above the schemes: they may import any scheme (the CLI dispatches through the
#: registry, the ledger walks every scheme's rows, compare sets the schemes side by side).
#: Everything else at the top level is core.
APPLICATION = {"costbook.cli", "costbook.ledger", "costbook.compare", "costbook.schemes"}


def module_names(root: Path = LIBRARY) -> dict:
    """{dotted module name: path} for every .py file under root/costbook."""
    out = {}
    for path in sorted((root / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def import_graph(modules: dict) -> dict:
    """{module: set of costbook modules it imports}; `from pkg import name` counts as importing
    pkg.name when that is a module, else pkg."""
    graph = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(), filename=str(path))
        deps = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                target = _resolve(name, path.name == "__init__.py", node)
                targets = [f"{target}.{a.name}" if f"{target}.{a.name}" in modules else target
                           for a in node.names]
            else:
                continue
            for t in targets:
                while t and t not in modules and "." in t:     # `import costbook.x.y` of a name inside y
                    t = t.rsplit(".", 1)[0]
                if t in modules and t != name and t.split(".")[0] == PACKAGE:
                    deps.add(t)
        graph[name] = deps
    return graph


def cycles(graph: dict) -> list:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def scheme_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[:2] == [PACKAGE, "schemes"] else None


def wrong_way_imports(graph: dict) -> list:
    """(importer, imported, rule) for every import against the layering."""
    bad = []
    for mod, deps in graph.items():
        for dep in deps:
            into = scheme_of(dep)
            if into is None:
                continue
            own = scheme_of(mod)
            if own is not None and own != into:
                bad.append((mod, dep, "one scheme imports another"))
            elif own is None and mod not in APPLICATION:
                bad.append((mod, dep, "a backend, group or core module imports a scheme"))
    return sorted(bad)


# ---------------------------------------------------------------------------------------------
# The checks themselves can fail: a synthetic graph with each fault

def test_the_checks_find_a_cycle_and_wrong_way_imports():
    graph = {"costbook.a": {"costbook.b"}, "costbook.b": {"costbook.c"}, "costbook.c": {"costbook.a"},
             "costbook.d": {"costbook.a"},
             "costbook.groups.msm": {"costbook.schemes.veccom.pointproofs"},
             "costbook.schemes.mixnet.paillier": {"costbook.schemes.cs03.primes"},
             "costbook.schemes.veccom.pointproofs": set(), "costbook.schemes.cs03.primes": set()}
    assert cycles(graph) == [["costbook.a", "costbook.b", "costbook.c"]]
    assert wrong_way_imports(graph) == [
        ("costbook.groups.msm", "costbook.schemes.veccom.pointproofs",
         "a backend, group or core module imports a scheme"),
        ("costbook.schemes.mixnet.paillier", "costbook.schemes.cs03.primes", "one scheme imports another")]


def test_relative_imports_are_resolved(tmp_path):
    pkg = tmp_path / PACKAGE
    (pkg / "schemes" / "x").mkdir(parents=True)
    for f in ("__init__.py", "core.py", "schemes/__init__.py", "schemes/x/__init__.py"):
        (pkg / f).write_text("")
    (pkg / "schemes" / "x" / "model.py").write_text("from ...core import thing\nfrom . import seed\n")
    (pkg / "schemes" / "x" / "seed.py").write_text("def f():\n    from .model import g\n")
    graph = import_graph(module_names(tmp_path))
    assert graph["costbook.schemes.x.model"] == {"costbook.core", "costbook.schemes.x.seed"}
    assert cycles(graph) == [["costbook.schemes.x.model", "costbook.schemes.x.seed"]]


# ---------------------------------------------------------------------------------------------
# The library

@pytest.fixture(scope="module")
def graph():
    return import_graph(module_names())


def test_no_import_cycle(graph):
    assert cycles(graph) == []


def test_imports_run_one_way(graph):
    assert wrong_way_imports(graph) == []


# ---------------------------------------------------------------------------------------------
# The scheme contract (docs/adding-a-scheme.md)

from costbook import schemes  # noqa: E402

SCHEMES = sorted(schemes.REGISTRY)


def contract_problems(name: str, module_path: str, package_dir: Path) -> list:
    """What a registered scheme lacks against the contract, as readable strings (empty: none)."""
    problems = []
    if module_path != f"costbook.schemes.{name}.model":
        problems.append(f"registry entry {module_path!r}: the model of scheme {name!r} must be "
                        f"costbook.schemes.{name}.model (registry name = package name)")
        return problems
    for f in ("__init__.py", "seed.py", "model.py"):
        if not (package_dir / f).is_file():
            problems.append(f"{name}: no {f}")
    if (package_dir / "groups.py").exists():
        problems.append(f"{name}: the group adapters are called curves.py in every scheme, not groups.py")
    if problems:
        return problems
    model = importlib.import_module(module_path)
    seed = importlib.import_module(f"costbook.schemes.{name}.seed")
    for attr in schemes.MODEL_API:
        if not hasattr(model, attr):
            problems.append(f"{name}.model has no {attr}")
    for fn, first in (("estimate", ["source", "backends"]), ("format_estimate", ["result"]),
                      ("format_validation", ["result"])):
        if callable(getattr(model, fn, None)):
            params = list(inspect.signature(getattr(model, fn)).parameters)
            if params[:len(first)] != first:
                problems.append(f"{name}.model.{fn} takes {params}, the contract says {first} first")
    if not dataclasses.is_dataclass(getattr(seed, "Parameters", None)):
        problems.append(f"{name}.seed has no Parameters dataclass")
        return problems
    options = getattr(model, "OPTIONS", {})
    if options != schemes.options(seed.Parameters):
        problems.append(f"{name}.model.OPTIONS differs from the fields of {name}.seed.Parameters")
    seed.Parameters()                                   # the defaults are valid
    for opt, (default, allowed) in options.items():
        numeric = isinstance(default, int) and not isinstance(default, bool)
        if numeric and not isinstance(allowed, schemes.Bounds):
            problems.append(f"{name}: numeric option {opt} has no Bounds")
        elif not numeric and not (isinstance(allowed, tuple) and allowed):
            problems.append(f"{name}: option {opt} has no tuple of choices")
        elif default not in allowed:
            problems.append(f"{name}: the default of {opt}, {default!r}, is outside {allowed}")
    return problems


@pytest.mark.parametrize("name", SCHEMES)
def test_every_scheme_follows_the_contract(name):
    package_dir = LIBRARY / "costbook" / "schemes" / name
    assert contract_problems(name, schemes.REGISTRY[name], package_dir) == []


def test_the_contract_check_finds_what_is_missing(tmp_path):
    assert contract_problems("veccom", "costbook.schemes.vectorcommit.model", tmp_path)[0].startswith(
        "registry entry 'costbook.schemes.vectorcommit.model'")
    (tmp_path / "model.py").write_text("")
    (tmp_path / "groups.py").write_text("")
    assert contract_problems("toy", "costbook.schemes.toy.model", tmp_path) == [
        "toy: no __init__.py", "toy: no seed.py",
        "toy: the group adapters are called curves.py in every scheme, not groups.py"]


def test_the_cli_calls_what_the_registry_docstring_names():
    """schemes/__init__.py names every model function the CLI calls."""
    graph_src = (LIBRARY / "costbook" / "cli.py").read_text()
    called = {n.attr for n in ast.walk(ast.parse(graph_src))
              if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "module"}
    assert called and called <= set(schemes.MODEL_API)
    for name in schemes.MODEL_API:
        assert name in schemes.__doc__


@pytest.mark.parametrize("name", SCHEMES)
def test_every_numeric_option_is_refused_outside_its_bounds(name):
    from costbook.cli import scheme_options
    model = schemes.get(name)
    for opt, (default, allowed) in model.OPTIONS.items():
        if not isinstance(allowed, schemes.Bounds):
            continue
        flag = "--" + opt.replace("_", "-")
        for ok in (allowed.low, allowed.high):
            assert scheme_options(model, {opt: str(ok)})[opt] == ok
        for bad in (str(allowed.low - 1) if allowed.low - 1 != 0 or allowed.zero is None else "-1",
                    str(allowed.high + 1), "9" * 40, "1e3", "nan", "inf", "", " ", "2.5", "0x10"):
            with pytest.raises(ValueError) as e:
                scheme_options(model, {opt: bad})
            assert str(e.value).startswith(f"{flag} must be an integer in [{allowed.low}, {allowed.high}]")
            assert "\n" not in str(e.value)
