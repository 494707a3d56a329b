"""The `costbook` command: measure, estimate, validate, check.

    costbook measure [--profile quick|full] [--out FILE] [--only 'modexp/*'] [--backend gmp]
    costbook estimate --counts '{"modexp/6144/256": 5}' --source reference [--backend gmp,sage] [--json]
    costbook estimate SCHEME [--params P] [--model M] [--<option> VALUE ...] [--source S] [--json]
    costbook validate SCHEME [--<option> VALUE ...] [--json]
    costbook check FILE...          # schema-check measurement files
    costbook sources                # list the measurement files the book knows
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from . import measurements, schemes
from .cost import Counts, MissingPrice, price
from .keys import UnknownPrimitiveKey


def _counts_arg(text: str) -> Counts:
    if text.startswith("@"):
        text = Path(text[1:]).read_text()
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise SystemExit(f"costbook: --counts is not valid JSON ({e})")
    if not isinstance(data, dict):
        raise SystemExit("costbook: --counts must be a JSON object of primitive key -> count")
    return Counts(data)


def _backends_arg(text: str | None):
    return [b.strip() for b in text.split(",") if b.strip()] if text else None


def cmd_measure(args) -> int:
    from .measure import measure
    out = measure(profile=args.profile, out=args.out, only=args.only, backends=_backends_arg(args.backend),
                  name=args.name, progress=not args.no_progress,
                  report=lambda msg: print(msg, file=sys.stderr))
    print(out)
    return 0


def scheme_options(module, given: dict, fill_defaults: bool = True) -> dict:
    """The scheme's OPTIONS filled from `given` (strings from the command line), checked.

    With fill_defaults=False only the options given are returned (checked all the same), so
    the scheme's function keeps its own defaults (validate runs every parameter set by default).
    """
    declared = getattr(module, "OPTIONS", {})
    unknown = set(given) - set(declared)
    if unknown:
        raise ValueError(f"unknown option(s) {', '.join('--' + u for u in sorted(unknown))} for this "
                         f"scheme (it takes: {', '.join('--' + o for o in declared) or 'none'})")
    options = {}
    for opt, (default, choices) in declared.items():
        if not fill_defaults and opt not in given:
            continue
        value = given.get(opt, default)
        if isinstance(default, int) and not isinstance(default, bool) and isinstance(value, str):
            try:
                value = int(value)
            except ValueError:
                raise ValueError(f"--{opt} must be an integer, got {value!r}") from None
            if value < 0 or (value == 0 and default != 0):   # a default of 0 admits 0 (a size, a count)
                raise ValueError(f"--{opt} must be {'non-negative' if default == 0 else 'positive'}, got {value}")
        if choices and value not in choices:
            raise ValueError(f"--{opt} must be one of {', '.join(map(str, choices))}, got {value!r}")
        options[opt] = value
    return options


def _extra_options(extra: list) -> dict:
    """`--name value` pairs left over by argparse, for scheme-specific options."""
    out, it = {}, iter(extra)
    for tok in it:
        if not tok.startswith("--"):
            raise ValueError(f"unexpected argument {tok!r}")
        name, _, value = tok[2:].partition("=")
        if not value:
            value = next(it, None)
            if value is None or value.startswith("--"):
                raise ValueError(f"--{name} needs a value")
        out[name.replace("-", "_")] = value
    return out


def cmd_estimate(args) -> int:
    if args.scheme:
        module = schemes.get(args.scheme)
        given = dict(args.scheme_options)
        for opt in ("params", "model"):
            if getattr(args, opt, None) is not None:
                given[opt] = getattr(args, opt)
        options = scheme_options(module, given)
        source = args.source or "published"
        if source == "published":
            source = f"published/{module.PUBLISHED}"
        result = module.estimate(measurements.load_source(source), backends=_backends_arg(args.backend),
                                 **options)
        text = json.dumps(result, indent=2) if args.json else module.format_estimate(result)
        print(text)
        return 0
    if not args.counts:
        raise SystemExit("costbook: give a SCHEME or --counts")
    mset = measurements.load_source(args.source or "reference")
    est = price(_counts_arg(args.counts), mset, _backends_arg(args.backend), label="counts")
    print(json.dumps(est.to_dict(), indent=2) if args.json else est)
    return 0


def cmd_validate(args) -> int:
    module = schemes.get(args.scheme)
    if not hasattr(module, "validate"):
        raise SystemExit(f"costbook: scheme {args.scheme!r} has no validation run")
    given = dict(args.scheme_options)
    if args.params is not None:
        given["params"] = args.params
    result = module.validate(**scheme_options(module, given, fill_defaults=False))
    print(json.dumps(result, indent=2) if args.json else module.format_validation(result))
    return 0


def cmd_check(args) -> int:
    bad = 0
    for f in args.files:
        try:
            m = measurements.load(f)
            n = sum(len(v) for v in m.results.values())
            print(f"ok  {f}: {m.kind} {m.name!r}, {len(m.results)} backend(s), {n} entries")
        except measurements.MeasurementFileError as e:
            print(f"BAD {e}")
            bad += 1
    return 1 if bad else 0


def cmd_sources(args) -> int:
    root = measurements.project_root() / "measurements"
    for path in sorted(root.glob("*/*.json")):
        try:
            m = measurements.load(path)
            print(f"{path.relative_to(root.parent)}: {m.kind}, {m.name}, backends {', '.join(m.backends)}")
        except measurements.MeasurementFileError as e:
            print(f"{path}: INVALID ({e})")
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="costbook", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)

    m = sub.add_parser("measure", help="time the primitives on this machine")
    m.add_argument("--profile", default="quick", choices=["quick", "full"])
    m.add_argument("--out", type=Path, help="output file (default measurements/local/this-machine.json)")
    m.add_argument("--only", action="append", metavar="GLOB", help="only keys matching GLOB (repeatable)")
    m.add_argument("--backend", help="comma-separated backends to run")
    m.add_argument("--name", help="name recorded in the file")
    m.add_argument("--no-progress", action="store_true")
    m.set_defaults(func=cmd_measure)

    # allow_abbrev=False: scheme options such as --m (mix-servers) must not be taken for --model
    e = sub.add_parser("estimate", help="price a scheme or a count vector", allow_abbrev=False)
    e.add_argument("scheme", nargs="?", help=f"one of: {', '.join(sorted(schemes.REGISTRY)) or '(none yet)'}")
    e.add_argument("--counts", help="JSON object key -> count, or @file.json")
    e.add_argument("--source", help="reference | local | book | published | published/NAME | FILE")
    e.add_argument("--backend", help="comma-separated backend preference list")
    e.add_argument("--params", help="named parameter set of the scheme")
    e.add_argument("--model", help="which cost model of the scheme")
    e.add_argument("--json", action="store_true", help="machine-readable output")
    e.set_defaults(func=cmd_estimate)

    v = sub.add_parser("validate", help="run a scheme and compare measured with predicted step times",
                       allow_abbrev=False)
    v.add_argument("scheme")
    v.add_argument("--params", help="one named parameter set (default: all of them)")
    v.add_argument("--json", action="store_true")
    v.set_defaults(func=cmd_validate)

    c = sub.add_parser("check", help="schema-check measurement files")
    c.add_argument("files", nargs="+", type=Path)
    c.set_defaults(func=cmd_check)

    s = sub.add_parser("sources", help="list known measurement files")
    s.set_defaults(func=cmd_sources)
    return p


def main(argv=None) -> int:
    p = parser()
    args, extra = p.parse_known_args(argv)
    try:
        if extra and not (args.command in ("estimate", "validate") and args.scheme):
            p.error(f"unrecognized arguments: {' '.join(extra)}")
        args.scheme_options = _extra_options(extra)
        return args.func(args)
    except (measurements.MeasurementFileError, MissingPrice, UnknownPrimitiveKey, KeyError, ValueError) as e:
        msg = e.args[0] if isinstance(e, KeyError) and e.args else e
        print(f"costbook: error: {msg}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
