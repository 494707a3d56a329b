"""The library's shape, checked from its source.

* Imports run one way: no import circle; nothing under ``costbook.timing.backends``, ``costbook.groups`` or
  the core modules imports ``costbook.schemes``; no scheme imports another scheme, statically or
  dynamically (``importlib.import_module``, ``__import__``, ``schemes.get``/``manifest``/
  ``comparison`` with a string naming another scheme).
* Schemes are discovered, and no core module names one (``test_no_core_module_names_a_scheme``).
* Nothing reads the environment but the CLI and the book runner (``ENVIRONMENT_READERS``).
* Every discovered scheme follows the contract of ``docs/adding-a-scheme.md``, and so does the toy
  scheme under tests/toy_schemes; an estimate depends only on (source, options); options are checked
  when a scheme is loaded.

Each check is also run on a throwaway module that breaks it, and must find the fault.

The import graph is read with ``ast`` (every ``import`` statement, also those inside functions:
a lazy import is still a dependency), so the check needs no import of the code it checks.
"""
from __future__ import annotations

import ast
import dataclasses
import importlib
import importlib.util
import inspect
import math
import re
import sys
from pathlib import Path

import pytest

LIBRARY = Path(__file__).resolve().parents[1] / "sage"
PACKAGE = "costbook"

#: Modules above the schemes that may import one statically: none.  The CLI, the ledger and compare
#: reach the schemes through ``costbook.schemes`` (discovery), never by a scheme's module name.
APPLICATION: set = set()


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


#: the schemes' package: a scheme's code imports the contract's helpers from it; the core reads the
#: schemes through costbook.registry, below it
SCHEMES_PACKAGE = f"{PACKAGE}.schemes"


def wrong_way_imports(graph: dict) -> list:
    """(importer, imported, rule) for every import against the layering."""
    bad = []
    for mod, deps in graph.items():
        for dep in deps:
            into = scheme_of(dep)
            if dep == SCHEMES_PACKAGE and scheme_of(mod) is None and mod != SCHEMES_PACKAGE:
                bad.append((mod, dep, "a core module imports the schemes' package (read them through costbook.registry)"))
            if into is None:
                continue
            own = scheme_of(mod)
            if own is not None and own != into:
                bad.append((mod, dep, "one scheme imports another"))
            elif own is None and mod not in APPLICATION:
                bad.append((mod, dep, "a backend, group or core module imports a scheme"))
    return sorted(bad)


#: The library's layers, the ground first: a module imports from its own layer and those before it,
#: never from one after it (``costbook/__init__.py`` says what each holds).
LAYERS = ("system", "prices", "registry", "writing", "groups", "timing", "calibration", "views", "cli", "book",
          "schemes", "__main__")


def layer_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def imports_against_the_layers(graph: dict) -> list:
    """(importer, imported) for every import of a later layer, or of a top-level room no layer names."""
    rank = {name: i for i, name in enumerate(LAYERS)}
    bad = []
    for mod, deps in graph.items():
        for dep in deps:
            a, b = layer_of(mod), layer_of(dep)
            if b == "":                   # the package itself: a face that imports nothing
                continue
            if a not in rank or b not in rank or rank[b] > rank[a]:
                bad.append((mod, dep))
    return sorted(bad)


# ---------------------------------------------------------------------------------------------
# The checks themselves can fail: a synthetic graph with each fault

def test_the_checks_find_a_cycle_and_wrong_way_imports():
    graph = {"costbook.a": {"costbook.b"}, "costbook.b": {"costbook.c"}, "costbook.c": {"costbook.a"},
             "costbook.d": {"costbook.a"},
             "costbook.views.ledger": {"costbook.schemes"}, "costbook.schemes": set(),
             "costbook.groups.msm": {"costbook.schemes.veccom.pointproofs"},
             "costbook.schemes.mixnet.paillier": {"costbook.schemes.cs03.primes"},
             "costbook.schemes.veccom.pointproofs": set(), "costbook.schemes.cs03.primes": set()}
    assert cycles(graph) == [["costbook.a", "costbook.b", "costbook.c"]]
    assert wrong_way_imports(graph) == [
        ("costbook.groups.msm", "costbook.schemes.veccom.pointproofs",
         "a backend, group or core module imports a scheme"),
        ("costbook.schemes.mixnet.paillier", "costbook.schemes.cs03.primes", "one scheme imports another"),
        ("costbook.views.ledger", "costbook.schemes", "a core module imports the schemes' package (read them through costbook.registry)")]


def test_the_layer_check_finds_an_import_up_and_a_room_outside_the_layers():
    graph = {"costbook.prices.cost": {"costbook.system.atomic"}, "costbook.system.atomic": {"costbook.views.ledger"},
             "costbook.views.ledger": {"costbook.prices.cost"}, "costbook.extra": set(),
             "costbook.cli.commands": {"costbook.extra"}}
    assert imports_against_the_layers(graph) == [("costbook.cli.commands", "costbook.extra"),
                                                 ("costbook.system.atomic", "costbook.views.ledger")]


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


def test_every_module_sits_in_a_layer_and_imports_none_above_it(graph):
    rooms = {p.name.removesuffix(".py") for p in (LIBRARY / PACKAGE).iterdir()
             if p.name != "__pycache__" and (p.is_dir() or p.suffix == ".py") and p.name != "__init__.py"}
    assert rooms == set(LAYERS), rooms ^ set(LAYERS)
    assert imports_against_the_layers(graph) == []


# ---------------------------------------------------------------------------------------------
# The scheme contract (docs/adding-a-scheme.md)

from costbook import schemes  # noqa: E402

SCHEMES = sorted(schemes.REGISTRY)
TOY_SCHEMES_DIR = Path(__file__).resolve().parent / "toy_schemes"
TOYS = sorted(d.name for d in TOY_SCHEMES_DIR.iterdir() if (d / "model.py").is_file())
#: every scheme the contract tests run on: the discovered ones, then the toys (in a temporary book)
ALL = SCHEMES + TOYS


@pytest.fixture
def scheme(request):
    """The parametrized scheme's name, with the toy schemes discovered when it is a toy."""
    name = request.param
    if name in TOYS:
        request.getfixturevalue("toy_scheme")
    return name


def scheme_dir(name: str) -> Path:
    return Path(importlib.util.find_spec(f"costbook.schemes.{name}").submodule_search_locations[0])


def test_the_registry_is_discovered():
    """REGISTRY is the scan of the package: every subpackage with a model.py, nothing listed."""
    found = sorted(d.name for d in (LIBRARY / "costbook" / "schemes").iterdir() if (d / "model.py").is_file())
    assert SCHEMES == found and len(found) >= 1
    assert all(schemes.REGISTRY[n] == f"costbook.schemes.{n}.model" for n in found)
    src = (LIBRARY / "costbook" / "registry.py").read_text()
    assert "REGISTRY: Mapping[str, str] = _Registry()" in src


MANIFEST = ('CHAPTER = "chapters/99-{name}.ipynb"\nTITLE = "{name}"\nSECTION = "sec-{name}"\nPUBLISHED_FILES = ()\n'
            'BIBLIOGRAPHY = ()\nSEED_NOTES = {{}}\nSEED_ERRATA = {{}}\nVALIDATION_CASES = ()\nCALIBRATION_CASES = ()\n')


def test_a_folder_on_the_path_is_a_scheme_at_once(tmp_path, monkeypatch):
    """A subpackage with a model.py and a manifest.py is a scheme; a folder with neither is not."""
    (tmp_path / "fresh").mkdir()
    (tmp_path / "fresh" / "__init__.py").write_text("")
    (tmp_path / "fresh" / "model.py").write_text("")
    (tmp_path / "fresh" / "manifest.py").write_text(MANIFEST.format(name="fresh"))
    (tmp_path / "helpers").mkdir()
    (tmp_path / "helpers" / "__init__.py").write_text("")
    monkeypatch.setattr(schemes, "__path__", [*schemes.__path__, str(tmp_path)])
    assert "fresh" in schemes.REGISTRY and "helpers" not in schemes.REGISTRY
    with pytest.raises(schemes.SchemeError, match=r"scheme 'fresh': costbook.schemes.fresh.model has no OPTIONS"):
        schemes.get("fresh")
    sys.modules.pop("costbook.schemes.fresh.model", None)
    sys.modules.pop("costbook.schemes.fresh", None)


def function_level_imports(path: Path, module: str, is_package: bool) -> list:
    """(line, imported module) of every import inside a function body of `path`."""
    tree = ast.parse(path.read_text(), filename=str(path))
    out = []
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(fn):
            if isinstance(node, ast.Import):
                out += [(node.lineno, a.name) for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(module, is_package, node)
                out += [(node.lineno, f"{base}.{a.name}") for a in node.names]
    return sorted(set(out))


def hidden_upward_imports(root: Path = LIBRARY) -> list:
    """(file, line, module) of every import, inside a function of a core module, of the schemes'
    package or a scheme, of ``costbook.calibration.validation``, or (outside the book's own package) of
    ``costbook.book``: the imports that would get round the layering by waiting until a call."""
    out = []
    for rel, path in core_files(root).items():
        module = ".".join(Path(rel).with_suffix("").parts)
        is_package = path.name == "__init__.py"
        if is_package:
            module = module.rsplit(".", 1)[0]
        for line, target in function_level_imports(path, module, is_package):
            hidden = (target == SCHEMES_PACKAGE or target.startswith(SCHEMES_PACKAGE + ".")
                      or target.startswith(f"{PACKAGE}.calibration.validation")
                      or (target.startswith(f"{PACKAGE}.book") and not module.startswith(f"{PACKAGE}.book")))
            if hidden:
                out.append((rel, line, target))
    return out


def test_no_core_module_hides_an_upward_import_in_a_function():
    assert hidden_upward_imports() == []


def test_the_hidden_import_check_finds_each_way(tmp_path):
    (tmp_path / PACKAGE / "book").mkdir(parents=True)
    (tmp_path / PACKAGE / "report.py").write_text(
        "from . import measurements\ndef f():\n    from .book.citations import Bibliography\n"
        "def g():\n    from . import schemes\n    from .calibration.validation import validate_steps\n    from .measurements import x\n")
    (tmp_path / PACKAGE / "book" / "execute.py").write_text("def f():\n    from . import render\n"
                                                            "    from ..calibration.validation import PROFILE_VARIABLE\n")
    assert [(f, n) for f, n, _ in hidden_upward_imports(tmp_path)] == [
        ("costbook/book/execute.py", 3), ("costbook/report.py", 3), ("costbook/report.py", 5), ("costbook/report.py", 6)]


# ---------------------------------------------------------------------------------------------
# No core module names a scheme

#: What a core module may still say of a scheme, file by file, each with why; the test fails on any
#: other occurrence and on an entry here that no longer occurs (so the list only shrinks).  Prose is
#: free: comments and docstrings are not scanned.
CORE_MAY_NAME: dict = {}


def _docstring_starts(tree) -> set:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                out.add((first.lineno, first.col_offset))
    return out


def scheme_names_in_code(path: Path, names, rel: str) -> list:
    """(rel, line, what) for every place in `path` that names one of the project's scheme packages
    `names`: an import of ``costbook.schemes.<name>`` (absolute or relative), a string that spells
    one's module ("costbook.schemes.<name>", "schemes/<name>", also built by an f-string, + or join),
    a string that is a scheme's name (``model("cs03")``, ``{"toy": 1}``), and a module whose own path
    is named like one.  Only the project's scheme packages count: a name that happens to match a
    folder elsewhere is not a scheme (``import py_ecc.bls`` names no scheme ``bls``), nor is an
    identifier, a comment or a docstring."""
    import re
    if not names:
        return []
    alternatives = "|".join(map(re.escape, names))
    word = re.compile(r"(?<![A-Za-z0-9])(" + alternatives + r")(?![A-Za-z0-9])")
    module_ref = re.compile(r"schemes[./*]+(" + alternatives + r")(?![A-Za-z0-9])")
    tree = ast.parse(path.read_text(), filename=str(path))
    docs = _docstring_starts(tree)
    module = ".".join(Path(rel).with_suffix("").parts)
    is_package = path.name == "__init__.py"
    if is_package:
        module = module.rsplit(".", 1)[0]
    out = [(rel, 0, "<module path>")] if word.search(rel.replace("/", " ").removesuffix(".py")) else []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            targets = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                       [f"{_resolve(module, is_package, node)}.{a.name}" for a in node.names])
            for t in targets:
                if scheme_of(t) in names:
                    out.append((rel, node.lineno, t))
        elif isinstance(node, (ast.Constant, ast.JoinedStr, ast.BinOp, ast.Call)):
            if (getattr(node, "lineno", None), getattr(node, "col_offset", None)) in docs:
                continue
            text = _text(node)
            if text is None:
                continue
            if module_ref.search(text) or (isinstance(node, ast.Constant) and text in names):
                out.append((rel, node.lineno, text))
    first = {}
    for hit in sorted(set(out), key=lambda h: (h[1], len(h[2]), h[2])):
        first.setdefault(hit[1], hit)             # one entry a line: the shortest text
    return list(first.values())


def core_files(root: Path = LIBRARY) -> dict:
    """{path relative to root: path} of every core module: everything under costbook/ but the
    scheme folders (costbook/schemes/<name>/); costbook/schemes/__init__.py is core."""
    out = {}
    for path in sorted((root / PACKAGE).rglob("*.py")):
        parts = path.relative_to(root / PACKAGE).parts
        if parts[0] == "schemes" and len(parts) > 2:
            continue
        out[path.relative_to(root).as_posix()] = path
    return out


def core_naming(names, root: Path = LIBRARY) -> list:
    return [hit for rel, path in core_files(root).items() for hit in scheme_names_in_code(path, names, rel)]


def test_no_core_module_names_a_scheme():
    hits = core_naming(ALL)
    unexpected = [h for h in hits if (h[0], h[2]) not in CORE_MAY_NAME]
    assert unexpected == [], "a core module names a scheme in code: " + "; ".join(f"{f}:{n} {t}" for f, n, t in unexpected)
    assert {(h[0], h[2]) for h in hits} == set(CORE_MAY_NAME), "stale CORE_MAY_NAME entries"


def test_the_naming_check_finds_a_scheme_named_in_code(tmp_path):
    (tmp_path / PACKAGE / "schemes" / "toy").mkdir(parents=True)
    (tmp_path / PACKAGE / "compare.py").write_text(
        '"""compare toy with the others (prose: free)."""\n# toy in a comment: free\n'
        'ROWS = {"toy": 1}\ndef _toy_rows():\n    return f"costbook.schemes.{x}"\nimport costbook.schemes.toy.model\n'
        'from .schemes.toy import seed\nm = importlib.import_module(f"costbook.schemes.{\'toy\'}.model")\n'
        'p = "sage/costbook/schemes/" + "toy"\n')
    (tmp_path / PACKAGE / "schemes" / "toy" / "model.py").write_text('NAME = "toy"\n')   # a scheme may
    (tmp_path / PACKAGE / "toy.py").write_text("")
    hits = core_naming(["toy"], tmp_path)
    assert [(f, n) for f, n, _ in hits] == [("costbook/compare.py", 3), ("costbook/compare.py", 6),
                                             ("costbook/compare.py", 7), ("costbook/compare.py", 8),
                                             ("costbook/compare.py", 9), ("costbook/toy.py", 0)]


def test_a_scheme_named_like_a_third_party_module_is_not_named_by_its_import(tmp_path):
    """A scheme `bls` is not named by a core benchmark's `import py_ecc.bls.hash_to_curve` (nor by
    an identifier or a key such as bls12_381/g1_mul): only the project's scheme packages count."""
    (tmp_path / PACKAGE / "backends").mkdir(parents=True)
    (tmp_path / PACKAGE / "backends" / "hash_to_curve.py").write_text(
        "import py_ecc.bls.hash_to_curve as h2c\nfrom py_ecc import bls\nfrom py_ecc.bls import G2ProofOfPossession\n"
        "def f(bls_key):\n    return bls.Sign(bls_key, b'x'), 'bls12_381/g1_mul'\n")
    assert core_naming(["bls"], tmp_path) == []
    (tmp_path / PACKAGE / "backends" / "hash_to_curve.py").write_text("from ..schemes.bls import seed\nNAME = 'bls'\n")
    assert [n for _, n, _ in core_naming(["bls"], tmp_path)] == [1, 2]


# ---------------------------------------------------------------------------------------------
# No scheme imports another, by any means

IMPORT_CALLS = {"import_module", "__import__", "get", "manifest", "comparison", "find_spec", "run_module", "reload"}


def _text(node) -> str | None:
    """The text a string expression builds, its non-constant parts as "*" (a constant, an f-string,
    a + chain, "".join([...]) of those), or None when the node builds no string."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "*" for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
        left, right = _text(node.left), _text(node.right)
        if left is None and right is None:
            return None
        return (left if left is not None else "*") + (right if right is not None else "*")
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("join", "format") \
            and node.args and isinstance(node.args[0], (ast.List, ast.Tuple)):
        parts = [_text(e) for e in node.args[0].elts]
        return "*".join(p if p is not None else "*" for p in parts)
    return None


def dynamic_imports_of_others(path: Path, own: str, names) -> list:
    """(line, what) of every place in a scheme module that may load another scheme: a call of
    import_module/__import__/find_spec/run_module/reload/get/manifest/comparison whose first argument
    names another scheme, or of import_module/__import__/find_spec/run_module/schemes.get whose
    argument is not a constant (it cannot be checked); and any string expression (constant, f-string,
    concatenation, join) that spells another scheme's module ("costbook.schemes.<other>",
    "schemes/<other>").  One entry per line."""
    import re
    others = [n for n in names if n != own]
    if not others:
        return []
    word = re.compile(r"(?<![A-Za-z0-9])(" + "|".join(map(re.escape, others)) + r")(?![A-Za-z0-9])")
    module_ref = re.compile(r"schemes[./*]+(" + "|".join(map(re.escape, others)) + r")(?![A-Za-z0-9])")
    out = {}
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            fname = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if fname in IMPORT_CALLS and node.args:
                text = _text(node.args[0])
                if text is not None and word.search(text):
                    out.setdefault(node.lineno, f"{fname}({text!r})")
                elif (text is None or "*" in text) and (
                        fname in ("import_module", "__import__", "find_spec", "run_module")
                        or (fname == "get" and isinstance(f, ast.Attribute) and ast.unparse(f.value).endswith("schemes"))):
                    out.setdefault(node.lineno, f"{fname}(<not a constant>)")
        text = _text(node) if isinstance(node, (ast.Constant, ast.JoinedStr, ast.BinOp, ast.Call)) else None
        if text is not None and module_ref.search(text):
            out.setdefault(node.lineno, f"string {text!r}")
    return sorted(out.items())


def _scheme_modules(name: str) -> dict:
    return {p.relative_to(scheme_dir(name)).as_posix(): p for p in sorted(scheme_dir(name).rglob("*.py"))}


@pytest.mark.parametrize("scheme", ALL, indirect=True)
def test_no_scheme_loads_another_dynamically(scheme):
    names = list(schemes.REGISTRY)
    bad = [(f, *hit) for f, path in _scheme_modules(scheme).items()
           for hit in dynamic_imports_of_others(path, scheme, names)]
    assert bad == []


def test_the_dynamic_import_check_finds_each_way(tmp_path):
    mod = tmp_path / "model.py"
    mod.write_text(
        "import importlib\nfrom costbook import schemes\nfrom costbook.schemes import get\n"
        "a = importlib.import_module('costbook.schemes.cs03.model')\n"
        "b = __import__('costbook.schemes.veccom.seed')\n"
        "c = schemes.get('mixnet')\n"
        "d = get('punchcard')\n"
        "e = importlib.import_module(name)\n"
        "f = 'costbook.schemes.' + 'cs03'\n"
        "g = schemes.get('toy')\n"                       # its own name: fine
        "h = {'cs03': 1}.get('cs03')\n"                  # a dict's get of another scheme's name: flagged
        "i = importlib.import_module(f'costbook.schemes.{x}.model')\n"
        "j = '.'.join(['costbook', 'schemes', 'veccom'])\n"
        "k = importlib.import_module('.model', 'costbook.schemes.mixnet')\n"
        "from . import seed\n")                           # its own modules: fine
    hits = dynamic_imports_of_others(mod, "toy", ["toy", "cs03", "veccom", "mixnet", "punchcard"])
    assert [line for line, _ in hits] == [4, 5, 6, 7, 8, 9, 11, 12, 13, 14]
    assert "import_module('costbook.schemes.cs03.model')" in hits[0][1]


# ---------------------------------------------------------------------------------------------
# The environment: read by the CLI and the book runner only

#: The modules that may read the environment, and why.  A scheme never does: its estimate takes
#: its prices from the source it is given.
ENVIRONMENT_READERS = {
    "costbook/cli/commands.py": "the command line: its entry reads what a user sets",
    "costbook/book/execute.py": "the chapter runner: make passes CHAPTER, SET and MEASUREMENTS as variables, "
                                "and it sets COSTBOOK_MEASUREMENTS for the kernel",
    "costbook/book/render.py": "the book renderer: names the measurement file the pages were made from",
    "costbook/book/quarto.py": "Quarto's post-render step: Quarto passes the output folder and whether the "
                               "render was whole as variables, make book the PDF it made",
    "costbook/prices/measurements.py": "COSTBOOK_ROOT (where the project is) and --source book (COSTBOOK_MEASUREMENTS); "
                                "to move into the CLI (not this issue's file)",
    "costbook/timing/measure.py": "sets thread-count variables before a measurement (setdefault reads them)",
    "costbook/book/measured.py": "the book runner's check whether a measurement can be reused reads make's "
                                 "PROFILE ($COSTBOOK_PROFILE)",
    "costbook/book/bench.py": "make bench-self: runs make with the caller's environment and $MAKE",
    "costbook/calibration/validation.py": "make test's first phase sets COSTBOOK_VALIDATION_PROFILE=check for the chapters "
                              "nbval runs (kernels take only the environment): their validation tables are "
                              "output nbval ignores; the gate and the book time with the full profile",
}


def environment_reads(path: Path) -> list:
    """(line, what) of every read of the environment: os.environ (any use), os.environb, os.getenv,
    os.getenvb, and `from os import environ/getenv`, whatever the module is imported as."""
    tree = ast.parse(path.read_text(), filename=str(path))
    os_names = {"os", "posix", "nt"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            os_names |= {a.asname for a in node.names if a.name in ("os", "posix", "nt") and a.asname}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in ("os", "posix", "nt"):
            out += [(node.lineno, f"from {node.module} import {a.name}") for a in node.names
                    if a.name in ("environ", "environb", "getenv", "getenvb", "*")]
        elif isinstance(node, ast.Attribute) and node.attr in ("environ", "environb", "getenv", "getenvb") \
                and isinstance(node.value, ast.Name) and node.value.id in os_names:
            out.append((node.lineno, f"{node.value.id}.{node.attr}"))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "__import__") \
                and any(isinstance(a, ast.Constant) and a.value in ("environ", "getenv", "environb") for a in node.args):
            out.append((node.lineno, "getattr(..., 'environ')"))
    return sorted(set(out))


def test_only_the_cli_and_the_book_runner_read_the_environment():
    readers = {rel for rel, path in core_files().items() if environment_reads(path)}
    assert readers <= set(ENVIRONMENT_READERS), f"reads the environment: {sorted(readers - set(ENVIRONMENT_READERS))}"
    # the CLI may read it without having to; any other entry no longer reading it is stale
    present = {f for f in ENVIRONMENT_READERS if (LIBRARY / f).exists()} - ({"costbook/cli/commands.py"} - readers)
    assert readers == present, f"stale ENVIRONMENT_READERS: {sorted(present - readers)}"


@pytest.mark.parametrize("scheme", ALL, indirect=True)
def test_no_scheme_reads_the_environment(scheme):
    bad = [(f, *hit) for f, path in _scheme_modules(scheme).items() for hit in environment_reads(path)]
    assert bad == []


def test_the_environment_check_finds_each_way(tmp_path):
    mod = tmp_path / "model.py"
    mod.write_text("import os\nimport os as o\nfrom os import getenv\nfrom os import environ as E\n"
                   "a = os.environ['COSTBOOK_X']\nb = os.getenv('X')\nc = o.environ.get('X')\n"
                   "d = 'X' in os.environ\ne = getattr(os, 'environ')\nf = os.path.join('a')\n")
    assert [line for line, _ in environment_reads(mod)] == [3, 4, 5, 6, 7, 8, 9]


# ---------------------------------------------------------------------------------------------
# The scheme contract (docs/adding-a-scheme.md)

def contract_problems(name: str, module_path: str, package_dir: Path) -> list:
    """What a scheme lacks against the contract, as readable strings (empty: none)."""
    from costbook.prices import measurements
    problems = []
    if module_path != f"costbook.schemes.{name}.model":
        problems.append(f"registry entry {module_path!r}: the model of scheme {name!r} must be "
                        f"costbook.schemes.{name}.model (registry name = package name)")
        return problems
    for f in ("__init__.py", "seed.py", "counts.py", "model.py", "manifest.py", "comparison.py"):
        if not (package_dir / f).is_file():
            problems.append(f"{name}: no {f}")
    if (package_dir / "groups.py").exists():
        problems.append(f"{name}: the group adapters are called curves.py in every scheme, not groups.py")
    if problems:
        return problems
    try:
        model = schemes.get(name)                       # checks MODEL_API and the options on loading
    except schemes.SchemeError as e:
        return [str(e)]
    seed = importlib.import_module(f"costbook.schemes.{name}.seed")
    for fn, first in (("estimate", ["source", "backends"]), ("format_estimate", ["result"]),
                      ("format_validation", ["result"])):
        if callable(getattr(model, fn, None)):
            params = list(inspect.signature(getattr(model, fn)).parameters)
            if params[:len(first)] != first:
                problems.append(f"{name}.model.{fn} takes {params}, the contract says {first} first")
    for fn in ("ledger_rows", "ledger_claims"):
        if not callable(getattr(model, fn, None)):
            problems.append(f"{name}.model has no {fn}() (its rows in the ledger)")
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
    # the manifest: what the book keeps for the scheme, each file where the book looks for it
    try:
        manifest = schemes.manifest(name)
    except schemes.SchemeError as e:
        return problems + [str(e)]
    root = measurements.project_root()
    from costbook import registry
    if name in registry.problems():             # its chapter exists and _quarto.yml lists it
        problems.append(registry.problems()[name])
    if model.PUBLISHED not in manifest.PUBLISHED_FILES:
        problems.append(f"{name}: model.PUBLISHED {model.PUBLISHED!r} is not among manifest.PUBLISHED_FILES")
    for f in manifest.PUBLISHED_FILES:
        try:
            measurements.load_source(f"published/{f}")
        except measurements.MeasurementFileError as e:
            problems.append(f"{name}: published file {f}: {e}")
    for number in manifest.SEED_NOTES:                 # its notes ship in its folder: its tests run in any clone
        if not any(package_dir.glob(f"{number}_*")):
            problems.append(f"{name}: its seed note {number}_... is not in its folder (manifest.SEED_NOTES)")
    bib = (root / "references.bib").read_text()
    for key in manifest.BIBLIOGRAPHY + tuple(manifest.SEED_NOTES.values()):
        if f"{{{key}," not in bib:
            problems.append(f"{name}: bibliography key {key} is not in references.bib")
    comparison = schemes.comparison(name)
    for fn in ("rows", "prices_without_spread"):
        if not callable(getattr(comparison, fn, None)):
            problems.append(f"{name}.comparison has no {fn}()")
    return problems


@pytest.mark.parametrize("scheme", ALL, indirect=True)
def test_every_scheme_follows_the_contract(scheme):
    assert contract_problems(scheme, schemes.REGISTRY[scheme], scheme_dir(scheme)) == []


def test_every_published_file_belongs_to_one_scheme():
    from costbook.prices import measurements
    declared = [f for s in SCHEMES for f in schemes.manifest(s).PUBLISHED_FILES]
    on_disk = sorted(measurements.published_files())
    assert sorted(declared) == on_disk


def test_the_contract_check_finds_what_is_missing(tmp_path):
    assert contract_problems("veccom", "costbook.schemes.vectorcommit.model", tmp_path)[0].startswith(
        "registry entry 'costbook.schemes.vectorcommit.model'")
    (tmp_path / "model.py").write_text("")
    (tmp_path / "groups.py").write_text("")
    assert contract_problems("toy", "costbook.schemes.toy.model", tmp_path) == [
        "toy: no __init__.py", "toy: no seed.py", "toy: no counts.py", "toy: no manifest.py", "toy: no comparison.py",
        "toy: the group adapters are called curves.py in every scheme, not groups.py"]


def test_the_cli_calls_what_the_registry_docstring_names():
    """The registry's docstring names every model function the CLI calls."""
    graph_src = (LIBRARY / "costbook" / "cli" / "commands.py").read_text()
    called = {n.attr for n in ast.walk(ast.parse(graph_src))
              if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "module"}
    assert called and called <= set(schemes.MODEL_API)
    for name in schemes.MODEL_API + schemes.MANIFEST_API:
        assert name in (LIBRARY / "costbook" / "registry.py").read_text()


@pytest.mark.parametrize("scheme", ALL, indirect=True)
def test_every_numeric_option_is_refused_outside_its_bounds(scheme):
    from costbook.cli.commands import scheme_options
    model = schemes.get(scheme)
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


# ---------------------------------------------------------------------------------------------
# Options are checked when a scheme is loaded

@pytest.mark.parametrize("allowed, message", [
    ("Bounds(None, None)", "scheme 'broken', option 'n': Bounds.low must be an integer, got None"),
    ("Bounds(1, None)", "scheme 'broken', option 'n': Bounds.high must be an integer, got None"),
    ("Bounds(9, 1)", "scheme 'broken', option 'n': Bounds low 9 above high 1"),
    ("Bounds(5, 9)", "scheme 'broken', option 'n': the default 3 is outside [5, 9]"),
    ("None", "scheme 'broken', option 'n': allowed must be Bounds(low, high) or a tuple of strings, got None"),
    ("()", "scheme 'broken', option 'n': allowed must be Bounds(low, high) or a tuple of strings, got ()"),
])
def test_option_bounds_are_checked_when_the_scheme_is_loaded(tmp_path, monkeypatch, capsys, allowed, message):
    """A seed whose option has no usable bounds is refused on loading, naming scheme and field;
    before, Bounds(None, None) loaded and raised a TypeError at the first `value in bounds`."""
    pkg = tmp_path / "broken"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "seed.py").write_text(
        "from dataclasses import dataclass\nfrom costbook.schemes import Bounds, option\n"
        f"@dataclass(frozen=True)\nclass Parameters:\n    n: int = option(3, {allowed})\n")
    (pkg / "model.py").write_text("from costbook.schemes import options\nfrom .seed import Parameters\n"
                                  "OPTIONS = options(Parameters)\n")
    (pkg / "manifest.py").write_text(MANIFEST.format(name="broken"))
    monkeypatch.setattr(schemes, "__path__", [*schemes.__path__, str(tmp_path)])
    try:
        with pytest.raises(schemes.SchemeError) as e:
            schemes.get("broken")
        assert str(e.value) == message
        from costbook.cli.commands import main                   # the CLI says it in one line
        assert main(["estimate", "broken"]) == 2
        err = capsys.readouterr().err
        assert err == f"costbook: error: {message}\n"
    finally:
        for m in ("costbook.schemes.broken.model", "costbook.schemes.broken.seed", "costbook.schemes.broken"):
            sys.modules.pop(m, None)
    if allowed == "Bounds(None, None)":
        with pytest.raises(TypeError):                 # the crash the load-time check forestalls
            3 in schemes.Bounds(None, None)


# ---------------------------------------------------------------------------------------------
# An estimate depends only on (source, options)

def _factor(key: str, salt: str) -> float:
    """A price factor per key family and salt, between 1 and 10 and different from family to
    family: the sizes of one family keep one factor (so a size's price still grows with it)."""
    import re
    import zlib
    family = re.sub(r"\d+", "#", key)
    return 1 + (zlib.crc32(f"{salt}:{family}".encode()) % 9000) / 1000


def scaled_source(base, salt: str):
    """`base` (a measured set) with every price times _factor(key, salt): a valid measurement file,
    whose prices differ from base and from another salt's by a different factor per key family."""
    import copy
    from costbook.prices.measurements import validate
    data = copy.deepcopy(base.to_json())
    data["name"] = f"{base.name} scaled {salt}"
    for entries in data["results"].values():
        for key, e in entries.items():
            for field in ("median", "q1", "q3", "mad", "min", "low", "high"):
                if field in e:
                    e[field] *= _factor(key, salt)
    return validate(data)


def breakdown_problems(result, source, path="result") -> list:
    """Every priced line of an estimate (a "breakdown" list anywhere in the result) checked against
    `source`: a price measured there must be the source's price, exactly; a derived price (a line with
    a note) must be what the cost core derives from `source`; each line's seconds = count x price, and
    each total the sum of its lines.  Lines from a backend `source` does not have are reported."""
    from costbook.prices.cost import price
    out = []
    if isinstance(result, dict):
        lines = result.get("breakdown")
        if isinstance(lines, list) and lines and isinstance(lines[0], dict) and "unit_price_s" in lines[0]:
            for l in lines:
                b, k = l["backend"], l["key"]
                if b not in source.backends:
                    out.append(f"{path}: {k} priced by backend {b!r}, not in {source.name}")
                    continue
                if source.has(b, k):
                    want = source.seconds(b, k)
                else:
                    try:
                        want = price({k: 1}, source, b, derive=True).total
                    except LookupError:
                        # a proxy: the scheme prices k as another operation of the same backend
                        # (punch cards: libsodium's encode as its decode); still one of source's prices
                        same = [source.seconds(b, o) for o in source.keys(b)]
                        want = min(same, key=lambda x: abs(x - l["unit_price_s"])) if same else math.nan
                if l["unit_price_s"] != pytest.approx(want, rel=1e-12):
                    out.append(f"{path}: {k} at {l['unit_price_s']:.6g} s, {source.name} says {want:.6g} s")
                if l["seconds"] != pytest.approx(l["count"] * l["unit_price_s"], rel=1e-12):
                    out.append(f"{path}: {k}: seconds != count x price")
            for total in ("total_s", "seconds"):
                if total in result and result[total] != pytest.approx(sum(l["seconds"] for l in lines), rel=1e-9):
                    out.append(f"{path}: {total} is not the sum of its lines")
        for k, v in result.items():
            out += breakdown_problems(v, source, f"{path}.{k}")
    elif isinstance(result, list):
        for i, v in enumerate(result):
            out += breakdown_problems(v, source, f"{path}[{i}]")
    return out


def _priced_lines(result) -> int:
    if isinstance(result, dict):
        here = len(result["breakdown"]) if isinstance(result.get("breakdown"), list) else 0
        return here + sum(_priced_lines(v) for v in result.values())
    return sum(_priced_lines(v) for v in result) if isinstance(result, list) else 0


@pytest.fixture(scope="module")
def two_sources():
    from costbook.prices import measurements
    ref = measurements.load_source("reference")
    return scaled_source(ref, "A"), scaled_source(ref, "B")


@pytest.mark.parametrize("scheme", ALL, indirect=True)
def test_an_estimate_depends_only_on_its_source(scheme, two_sources):
    """Priced with two sources whose prices differ by a different factor per key family, each
    estimate's lines are its own source's prices times the counts (a price leaked from another
    source, or from the environment, is caught whatever its scale), and pricing with one source,
    then the other, then the first again gives the first answer again."""
    import copy
    a, b = two_sources
    before = copy.deepcopy((a.to_json(), b.to_json()))
    model = schemes.get(scheme)
    first = model.estimate(a)
    assert _priced_lines(first) > 0
    assert breakdown_problems(first, a) == []
    assert breakdown_problems(model.estimate(b), b) == []
    assert model.estimate(a) == first
    assert (a.to_json(), b.to_json()) == before, "the estimate changed the source it was given"


def test_the_source_check_catches_a_leak_that_keeps_every_ratio(two_sources):
    """The hole issue 23 names: a price leaked from another machine scaled uniformly (x1000 keeps
    every ratio) was caught only by rounding.  Here the leak is any other source's price."""
    from costbook.prices.cost import price
    a, b = two_sources
    key = "ristretto255/mul"
    honest = {"breakdown": price({key: 2}, a, "sage").to_dict()["breakdown"]}
    leaked = {"breakdown": price({key: 2}, b, "sage").to_dict()["breakdown"]}
    assert breakdown_problems(honest, a) == []
    assert len(breakdown_problems(leaked, a)) == 1 and "ristretto255/mul at" in breakdown_problems(leaked, a)[0]
    assert _factor(key, "A") != _factor(key, "B")


# ---------------------------------------------------------------------------------------------
# Code that says what and why: history lives in the commit log and the book

#: the longest module docstring: what the module is, why, a reference; detail sits with its function
MAX_MODULE_DOCSTRING_LINES = 25
#: a tracker's issue number in the code's words ("issue 22", "issues #7")
ISSUE_NUMBER = re.compile(r"\bissues? ?#?\d+", re.I)


def long_docstrings_and_issue_numbers(root: Path = LIBRARY) -> list:
    out = []
    for path in sorted((root / PACKAGE).rglob("*")):
        if "__pycache__" in path.parts or not path.is_file():
            continue
        rel = path.relative_to(root).as_posix()
        text = path.read_text(errors="replace") if path.suffix in (".py", ".js", ".lua", ".j2", ".typ", ".css") else ""
        if path.suffix == ".py":
            doc = ast.get_docstring(ast.parse(text), clean=False) or ""
            if len(doc.splitlines()) > MAX_MODULE_DOCSTRING_LINES:
                out.append((rel, f"module docstring of {len(doc.splitlines())} lines"))
        out += [(rel, m.group(0)) for m in ISSUE_NUMBER.finditer(text)]
    return out


def test_no_long_module_docstring_and_no_issue_number_in_the_code():
    assert long_docstrings_and_issue_numbers() == []


def test_the_docstring_check_finds_both(tmp_path):
    (tmp_path / PACKAGE).mkdir()
    (tmp_path / PACKAGE / "a.py").write_text('"""' + "line\n" * 26 + '"""\nx = 1  # see issue 22\n')
    (tmp_path / PACKAGE / "b.js").write_text("// Issues #7 and 8\n")
    assert long_docstrings_and_issue_numbers(tmp_path) == [
        ("costbook/a.py", "module docstring of 26 lines"), ("costbook/a.py", "issue 22"), ("costbook/b.js", "Issues #7")]
