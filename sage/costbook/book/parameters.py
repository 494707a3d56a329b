"""A chapter's parameters, overridden from the command line and checked before any kernel starts.

A chapter's code cell tagged `parameters` assigns what a reader may change (`PUNCHES = 10`).  The
same cell declares, in its metadata (`costbook.parameters`, one entry per name), what each admits:

    "PARAMS":   {"allowed": {"scheme": "cs03", "option": "params"}}     # as `costbook estimate cs03 --params`
    "K":        {"allowed": {"scheme": "cs03", "option": "k"}, "nonzero": true}
    "N_DEMO":   {"allowed": {"min": 6, "max": 64}}                       # integers, both ends included
    "CURVE":    {"allowed": ["ristretto255", "bls12_381"]}               # these values only
    "MODULUS_BITS": {"allowed": {"python": "costbook.timing.backends.modexp:MODULUS_BITS"}, "max_items": 5}
    "SOURCE":   {"allowed": "measurement source"}                        # book, reference, local, a file

A scheme's option is the one declaration the CLI checks too (its `seed.Parameters`: a tuple of
choices or `schemes.Bounds`), so the chapter and `costbook estimate` admit the same values; a name
in the package (`module:NAME`, a tuple or a dict's keys) is the list the code itself iterates.  The
type is the default's: an integer stays an integer, a string a string, a list a list (then
`allowed` applies to each item, and `max_items` bounds its length; `multiple_of` an integer's
step).  `--set NAME=VALUE` (make chapter's SET) is a Python literal, checked against all of this;
what is injected into the chapter is the checked value written back as a literal.
"""
from __future__ import annotations

import ast
import importlib
import math
import numbers
import re

import nbformat

from .. import registry

INJECTED_TAG = "injected-parameters"
SPEC_KEY = "costbook"                 # the parameters cell's metadata: {"costbook": {"parameters": ...}}

#: longer than any value a chapter takes (a path to a measurement file included): refused unparsed
MAX_VALUE_CHARS = 4096

#: a list parameter without its own max_items
DEFAULT_MAX_ITEMS = 16


class ParameterError(ValueError):
    """An override names no parameter of the chapter, or its value is not one the chapter admits."""


def shown_value(text: str, limit: int = 60) -> str:
    """A value from the user in a one-line message: quoted, control characters escaped, and cut
    short (a 4000-digit number is named by its length)."""
    text = str(text)
    return repr(text) if len(text) <= limit else f"{text[:limit - 20]!r}... ({len(text)} characters)"


def parse_override(text: str) -> tuple[str, str]:
    """'NAME=VALUE' -> (NAME, VALUE), VALUE checked to be a Python literal."""
    name, sep, value = text.partition("=")
    name, value = name.strip(), value.strip()
    if not sep or not name.isidentifier():
        raise ParameterError(f"--set {shown_value(text)}: expected NAME=VALUE, e.g. --set 'PARAMS=\"aggressive\"'")
    literal(name, value)
    return name, value


def literal(name: str, value: str):
    """The Python value of an override's text, or a ParameterError naming it."""
    if len(value) > MAX_VALUE_CHARS:
        raise ParameterError(f"--set {name}: the value {shown_value(value)} is longer than any parameter's "
                             f"value ({MAX_VALUE_CHARS} characters)")
    try:
        return ast.literal_eval(value)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise ParameterError(f"--set {name}: the value {shown_value(value)} is not a Python literal "
                             "(numbers, strings in quotes, True/False/None, lists, tuples, dicts)") from None


def parameters_cell(nb, where: str):
    cells = [c for c in nb.cells if c.cell_type == "code" and "parameters" in c.metadata.get("tags", [])]
    if len(cells) != 1:
        raise ParameterError(f"{where}: needs exactly one code cell tagged 'parameters' to override "
                             f"parameters (found {len(cells)})")
    return cells[0]


def assigned(source: str) -> dict:
    """{name: its default, or None when it is not a literal} for the names the cell assigns (a cell
    in Sage-only syntax: its `NAME =` lines, defaults unknown)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return dict.fromkeys(re.findall(r"^([A-Za-z_]\w*)\s*(?::[^=]*)?=(?!=)", source, re.M))
    out = {}

    def value_of(node):
        try:
            return ast.literal_eval(node)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return None

    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
            if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []
        value = getattr(node, "value", None)
        for t in targets:
            if isinstance(t, ast.Name):
                out[t.id] = value_of(value) if value is not None else None
            elif isinstance(t, ast.Tuple) and isinstance(value, ast.Tuple) and len(t.elts) == len(value.elts):
                for target, v in zip(t.elts, value.elts):       # K, K_PRIME = 256, 128
                    if isinstance(target, ast.Name):
                        out[target.id] = value_of(v)
            else:
                out.update((n.id, None) for n in ast.walk(t) if isinstance(n, ast.Name))
    return out


def declared(cell) -> dict:
    meta = cell.metadata.get(SPEC_KEY)
    specs = meta.get("parameters") if isinstance(meta, dict) else None
    return specs if isinstance(specs, dict) else {}


# ---------------------------------------------------------------------------------------------
# What a declaration admits

def _kind(value) -> str | None:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, numbers.Integral):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    if isinstance(value, list):
        return "list"
    return None


_KIND_NAMES = {"bool": "True or False", "int": "an integer", "float": "a number", "str": "a string in quotes",
               "list": "a list in brackets"}


def _allowed(spec: dict, name: str, where: str):
    """What `spec["allowed"]` admits: a tuple of choices, (low, high, zero_allowed) bounds, or the
    string "measurement source"."""
    allowed = spec.get("allowed")
    if isinstance(allowed, list):
        return tuple(allowed)
    if allowed == "measurement source":
        return allowed
    if isinstance(allowed, dict) and set(allowed) == {"min", "max"}:
        return (allowed["min"], allowed["max"], False)
    if isinstance(allowed, dict) and set(allowed) == {"scheme", "option"}:
        try:
            options = registry.model(allowed["scheme"]).OPTIONS
        except Exception as e:        # a scheme folder that does not load: its error, in one line
            raise ParameterError(f"{where}: {name} takes scheme {allowed['scheme']}'s option "
                                 f"{allowed['option']}, but the scheme does not load "
                                 f"({' '.join(str(e).split())[:200]})") from None
        if allowed["option"] not in options:
            raise ParameterError(f"{where}: {name} is declared as scheme {allowed['scheme']}'s option "
                                 f"{allowed['option']}, which it does not have")
        choices = options[allowed["option"]][1]
        if isinstance(choices, registry.Bounds):
            return (choices.low, choices.high, choices.zero is not None and not spec.get("nonzero"))
        return tuple(choices)
    if isinstance(allowed, dict) and set(allowed) == {"python"}:
        module, _, attr = str(allowed["python"]).partition(":")
        try:
            return tuple(getattr(importlib.import_module(module), attr))
        except (ImportError, AttributeError, TypeError) as e:
            raise ParameterError(f"{where}: {name}'s declaration names {allowed['python']}, which cannot "
                                 f"be read ({' '.join(str(e).split())[:200]})") from None
    raise ParameterError(f"{where}: {name}'s declaration is malformed (costbook.parameters: {spec!r})")


def _describe(allowed) -> str:
    if allowed == "measurement source":
        return "a measurement source: book, reference, local, published/<name> or a measurement file"
    if _is_bounds(allowed):
        return f"an integer from {allowed[0]} to {allowed[1]}" + (" (or 0)" if allowed[2] else "")
    return "one of " + ", ".join(repr(c) for c in allowed)


def _is_bounds(allowed) -> bool:
    return isinstance(allowed, tuple) and len(allowed) == 3 and allowed[2] in (True, False) and \
        all(isinstance(x, numbers.Integral) and not isinstance(x, bool) for x in allowed[:2])


def _admits(allowed, spec: dict, value) -> bool:
    if allowed == "measurement source":
        return isinstance(value, str)             # the file itself is loaded by check_value
    if _is_bounds(allowed):
        low, high, zero = allowed
        step = spec.get("multiple_of", 1)
        return (_kind(value) == "int" and (low <= value <= high or (zero and value == 0))
                and value % step == 0)
    return any(type(c) is type(value) and c == value for c in allowed)


def check_value(cell, name: str, value, where: str) -> None:
    """Raise a ParameterError (one line) unless `value` is one the parameters cell admits for `name`."""
    defaults, specs = assigned(cell.source), declared(cell)
    if name not in defaults:
        raise ParameterError(f"{where}: no parameter {name} in the parameters cell "
                             f"(it assigns: {', '.join(sorted(defaults)) or 'nothing'})")
    spec = specs.get(name)
    if not isinstance(spec, dict):
        raise ParameterError(f"{where}: {name} declares no values it admits (the parameters cell's metadata "
                             f"{SPEC_KEY}.parameters), so it cannot be overridden")
    allowed = _allowed(spec, name, where)
    default = defaults[name]
    kind, want = _kind(value), _kind(default)
    step = spec.get("multiple_of")
    admits = _describe(allowed) + (f", a multiple of {step}" if step else "")
    if want == "list":
        most = int(spec.get("max_items", DEFAULT_MAX_ITEMS))
        takes = f"a list of 1 to {most} items, each {admits}"
    else:
        takes = admits + (f" ({_KIND_NAMES[want]})" if want == "str" else "")
    refused = f"{where}: {name}={_literal(value)}"
    example = f"; e.g. {name}={default!r}, its value in the chapter" if default is not None else ""
    if want is not None and kind != want and not (want == "float" and kind == "int"):
        raise ParameterError(f"{refused} is {_KIND_NAMES.get(kind, 'not a number, string or list')}; "
                             f"{name} takes {takes}{example}")
    items = value if want == "list" else [value]
    if want == "list" and not 1 <= len(items) <= most:
        raise ParameterError(f"{refused} has {len(items)} items; {name} takes {takes}")
    for x in items:
        if not _admits(allowed, spec, x):
            what = f"{refused} holds {_literal(x)}, which" if want == "list" else refused
            raise ParameterError(f"{what} is not admitted: {name} takes {takes}{example}")
        if allowed == "measurement source":
            from ..prices import measurements as ms
            try:
                ms.load(ms.resolve(x))
            except ms.MeasurementFileError as e:
                raise ParameterError(f"{refused}: {' '.join(str(e).split())}") from None


def _literal(value, limit: int = 60) -> str:
    """A checked value as the literal it was read as, in one line (repr escapes control characters),
    cut short: a 4000-digit number is named by its length."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit - 25]}... ({len(text)} characters)"


#: how many option combinations of one scheme a chapter's values are checked in at most
MAX_COMBINATIONS = 1024


def scheme_options(cell) -> dict:
    """{scheme: {parameter name: option}} of the parameters the cell declares as a scheme's options."""
    out: dict = {}
    for name, spec in declared(cell).items():
        allowed = spec.get("allowed") if isinstance(spec, dict) else None
        if isinstance(allowed, dict) and set(allowed) == {"scheme", "option"}:
            out.setdefault(allowed["scheme"], {})[name] = allowed["option"]
    return out


def combinations(cell) -> list:
    """[(scheme, fixed options, {parameter name: option})]: how the chapter combines its parameters in
    one estimate.  The cell's metadata `costbook.together` lists them ({"scheme", "fixed", "names"}:
    chapter 4 prices |rho| and k' with the scheme's own model and k with the seed's); without it, each
    scheme's declared parameters together, nothing fixed."""
    options = scheme_options(cell)
    meta = cell.metadata.get(SPEC_KEY)
    together = meta.get("together") if isinstance(meta, dict) else None
    if not together:
        return [(scheme, {}, names) for scheme, names in options.items()]
    return [(t["scheme"], dict(t.get("fixed") or {}), {n: options[t["scheme"]][n] for n in t["names"]})
            for t in together]


def check_together(cell, values: dict, where: str, prices: bool = True) -> None:
    """Each combination of the chapter's values (``combinations``) checked by the scheme's own rules
    (its ``seed.Parameters``: "k too large for |rho|", "punches must be even on BLS12-381"), a list
    parameter item by item against the others; and, with `prices`, each measurement source asked to
    price each combination's estimate.  All before any kernel starts."""
    import itertools

    combos = combinations(cell)
    for scheme, fixed, names in combos:
        model = registry.model(scheme)
        axes = [[(n, x) for x in values[n]] if isinstance(values[n], list) else [(n, values[n])] for n in names]
        if math.prod(len(a) for a in axes) > MAX_COMBINATIONS:
            raise ParameterError(f"{where}: {', '.join(names)}: more than {MAX_COMBINATIONS} combinations to check")
        for combo in itertools.product(*axes):
            try:
                model.Parameters(**fixed, **{names[n]: x for n, x in combo})
            except ValueError as e:
                raise ParameterError(f"{where}: {', '.join(f'{n}={_literal(x)}' for n, x in combo)}: "
                                     f"{' '.join(str(e).split())}") from None
    if not prices:
        return
    from ..prices import measurements as ms
    from ..prices.cost import MissingPrice
    for name, spec in declared(cell).items():
        if not (isinstance(spec, dict) and spec.get("allowed") == "measurement source" and isinstance(values.get(name), str)):
            continue
        source = ms.load(ms.resolve(values[name]))
        for scheme, fixed, names in combos:
            first = {opt: (values[n][0] if isinstance(values[n], list) else values[n]) for n, opt in names.items()}
            try:
                registry.model(scheme).estimate(source, **fixed, **first)
            except (MissingPrice, LookupError, ValueError) as e:
                raise ParameterError(f"{where}: {name}={_literal(values[name])} cannot price {scheme}'s estimate "
                                     f"({' '.join(str(e).split())[:300]})") from None


def inject_parameters(nb, overrides: list[tuple[str, str]], where: str) -> None:
    """Check `overrides` against the cell tagged parameters, and with the chapter's other values by the
    schemes' own rules (``check_together``), then put them (each value written back as the literal it
    was read as) in a cell tagged injected-parameters right after it."""
    params = parameters_cell(nb, where)
    checked = []
    for name, text in overrides:
        value = literal(name, text)
        check_value(params, name, value, where)
        checked.append((name, value))
    check_together(params, {**assigned(params.source), **dict(checked)}, where)
    nb.cells = [c for c in nb.cells if INJECTED_TAG not in c.metadata.get("tags", [])]
    code = "# Injected parameters (overrides of the cell above)\n" + "\n".join(f"{n} = {v!r}" for n, v in checked)
    cell = nbformat.v4.new_code_cell(code, metadata={"tags": [INJECTED_TAG]})
    nb.cells.insert(nb.cells.index(params) + 1, cell)


def check_defaults(nb, where: str) -> list[str]:
    """What is wrong with a chapter's own parameters cell: a name without a declaration, or a
    default its declaration does not admit (tests/test_parameters_checked.py runs it on every
    chapter); [] when nothing is."""
    cells = [c for c in nb.cells if c.cell_type == "code" and "parameters" in c.metadata.get("tags", [])]
    if not cells:
        return []
    cell, problems = parameters_cell(nb, where), []
    for name, default in assigned(cell.source).items():
        try:
            check_value(cell, name, default, where)
        except ParameterError as e:
            problems.append(str(e))
    for name in declared(cell):
        if name not in assigned(cell.source):
            problems.append(f"{where}: {name} is declared but the cell does not assign it")
    if not problems:
        try:
            check_together(cell, assigned(cell.source), where, prices=False)
        except (ParameterError, KeyError) as e:
            problems.append(str(e))
    return problems
