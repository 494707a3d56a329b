"""The `costbook` command: measure, estimate, validate, check.

    costbook measure [--profile quick|full] [--out FILE] [--only 'modexp/*'] [--backend gmp]
    costbook measure-dalek [--profile full] [--out FILE]   # the punch-card seed's library (needs cargo)
    costbook estimate --counts '{"modexp/6144/256": 5}' --source reference [--backend gmp,sage] [--json]
    costbook estimate SCHEME [--params P] [--model M] [--<option> VALUE ...] [--source S] [--json]
    costbook validate SCHEME [--<option> VALUE ...] [--processes 1] [--json]   # one run, as the intervals mean
    costbook check FILE...          # schema-check measurement files
    costbook sources                # list the measurement files the book knows
    costbook import zkalc FILE --library L --machine M [--complete] [--out OUT]   # see zkalc_commands
    costbook export zkalc [--source S] [--backend B] [--curve C] [--out OUT]

Bad input (a value out of range, a file that is missing or not a measurement file, ...) is refused
with exit code 2 and one line on stderr, `costbook: error: ...`, naming the option or file and what
it admits; a bug is one line `costbook: internal error: ...` and exit code 1; Ctrl-C exits 130.
Control characters in anything echoed are escaped (\x1b); each option is given at most once; an
option a command or model does not use is refused, not ignored.  Input files must be regular
files of at most 16 MiB.  An estimate is finite and non-negative or refused (a derived price
below zero or past the float range).  `measure --out` must name a file: not a directory, not a
path ending in '/', not a symbolic link (the file is replaced by a rename, which would replace
the link, not its target: give the target's path); two runs writing one file at once are refused.
"""
from __future__ import annotations

import argparse
import functools
import json
import math
import os
import re
import signal
import sys
import threading
from pathlib import Path

from ..system import children
from ..prices import measurements
from ..calibration import prediction, validation
from .. import registry
from ..prices.cost import Counts, CountsError, MissingPrice, price, recording
from ..prices.keys import UnknownPrimitiveKey

# A larger count is a typo, not a protocol (10^15 operations of even 1 ns is 11 days).
MAX_COUNT = 10**15
COUNTS_EXAMPLE = '{"modexp/6144/256": 1, "sha256/64B": 2.5}'


class UsageError(ValueError):
    """A bad command line; the message names the option and what it admits."""


class Terminated(BaseException):
    """SIGTERM as an exception, so that cleanups (the temporary of an atomic write) still run."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _counts_arg(text: str) -> Counts:
    """--counts: a JSON object of primitive key -> finite count in [0, MAX_COUNT], or @file."""
    where = "--counts"
    if text.startswith("@"):
        if not text[1:]:
            raise UsageError(f"--counts @: give a file name after @, e.g. --counts @counts.json")
        where = f"--counts {text}"
        text = measurements.read_text(text[1:], error=UsageError, what="counts file")
    data = measurements.parse_json(text, where, error=UsageError)
    if not isinstance(data, dict):
        raise UsageError(f"{where}: expected a JSON object of primitive key -> count, e.g. {COUNTS_EXAMPLE}")
    if not data:
        raise UsageError(f"{where}: no primitive keys (give at least one, e.g. {COUNTS_EXAMPLE})")
    try:
        counts = Counts(data)
    except (CountsError, UnknownPrimitiveKey) as e:
        raise UsageError(f"{where}: {e}") from None
    for key, n in counts.items():
        if n > MAX_COUNT:
            got = f"{n:g}" if isinstance(n, float) or n < 1e17 else f"an integer of {len(str(n))} digits"
            raise UsageError(f"{where}: count of {key!r} must be at most {MAX_COUNT:.0e}, got {got}")
    return counts


def _backends_arg(text: str | None):
    """--backend a,b,c as a list; None when not given.  An empty name is an error, not a default."""
    if text is None:
        return None
    names = [b.strip() for b in text.split(",")]
    if not all(names):
        raise UsageError(f"--backend: empty backend name in {text!r} (give names separated by commas, "
                         f"e.g. --backend gmp,sage)")
    return names


def _file_state(path: Path):
    try:
        st = os.stat(path)
        return st.st_ino, st.st_mtime_ns, st.st_size
    except OSError:
        return None


# Linux's limits: one path component (NAME_MAX) and a whole path (PATH_MAX), in bytes
NAME_MAX, PATH_MAX = 255, 4096


def out_path(text: str | None, option: str = "--out") -> Path | None:
    """An --out value as a Path, refused in one line unless it can name a file to write: not empty,
    not ending in '/', no component or path beyond the system's limits, not a directory, not a
    symbolic link (the file is written by renaming a new file over it, which would replace the link
    itself and leave its target as it was: give the target's path instead)."""
    if text is None:
        return None
    shown = text            # echoed as given; main() escapes control characters
    if not text:
        raise UsageError(f"{option} '': empty, and '.' is a directory (give a file name, e.g. this-machine.json)")
    if text.endswith("/") or text.endswith("/.") or text in (".", ".."):
        raise UsageError(f"{option} {shown}: names a directory (it ends in '/'); give a file name in it")
    raw = os.fsencode(text)
    longest = max(raw.split(b"/"), key=len)
    if len(longest) > NAME_MAX:
        raise UsageError(f"{option}: a path component of {len(longest)} bytes, longer than a file name may be "
                         f"({NAME_MAX} bytes)")
    if len(raw) >= PATH_MAX:
        raise UsageError(f"{option}: a path of {len(raw)} bytes, longer than a path may be ({PATH_MAX - 1} bytes)")
    path = Path(text)
    try:
        if path.exists() and not path.is_dir() and not path.is_symlink() and not path.is_file():
            raise UsageError(f"{option} {shown}: not a regular file (a device, FIFO or socket is never "
                             f"replaced by a measurement file)")
        if path.is_symlink():
            raise UsageError(f"{option} {shown}: is a symbolic link; costbook replaces the file by a rename, "
                             f"which would replace the link, not its target: give the target's path "
                             f"({os.path.realpath(text)!r})")
        if path.is_dir():
            raise UsageError(f"{option} {shown}: is a directory (give a file name, e.g. {path / 'this-machine.json'})")
    except OSError as e:
        raise UsageError(f"{option} {shown}: cannot be used ({(e.strerror or 'unusable path').lower()})") from None
    return path


def cmd_measure(args) -> int:
    from ..timing.measure import measure
    out = out_path(args.out) if args.out is not None else measurements.local_path()
    before = _file_state(out)

    def on_sigterm(signum, frame):
        raise Terminated(signum)

    previous = signal.signal(signal.SIGTERM, on_sigterm)
    try:
        written = measure(profile=args.profile, out=out, only=args.only, backends=_backends_arg(args.backend),
                          name=args.name, progress=not args.no_progress,
                          report=lambda msg: print(msg, file=sys.stderr), repeat=args.repeat)
    except (KeyboardInterrupt, Terminated) as e:
        # write_atomic replaces the file in one rename, so it is either old or new, never half
        after = _file_state(out)
        state = ("left unchanged" if after == before and before is not None else
                 "not written" if after is None else "was written before the interrupt")
        print(f"costbook: {'interrupted' if isinstance(e, KeyboardInterrupt) else 'terminated'}; "
              f"{clean(str(out))} {state}", file=sys.stderr)
        return 128 + (e.signum if isinstance(e, Terminated) else signal.SIGINT)
    finally:
        signal.signal(signal.SIGTERM, previous)
    print(clean(str(written)))
    return 0


def cmd_measure_dalek(args) -> int:
    from ..timing.backends.curve25519_dalek import DalekUnavailable
    from ..timing.measure import measure_dalek
    try:
        written = measure_dalek(profile=args.profile, out=out_path(args.out))
    except DalekUnavailable as e:
        print(f"costbook: error: {_message(e)}", file=sys.stderr)
        return 2
    print(clean(str(written)))
    return 0


_INTEGER = re.compile(r"[+-]?[0-9]+")


def _flag(opt: str) -> str:
    return "--" + opt.replace("_", "-")


def _integer_option(opt: str, value, allowed) -> int:
    """`value` (a command-line string or an int) as an int inside `allowed` (a registry.Bounds, or
    None for any positive integer), else a one-line ValueError naming the option and the range."""
    where = f"an integer in {allowed}" if allowed is not None else "an integer"
    text = value.strip() if isinstance(value, str) else value
    if isinstance(text, str):
        # digits only: no '1e3', 'inf', 'nan', '0x10', '1.5'; at most 30 digits, so that int()
        # never works on a huge string (every bound is far below 10^30)
        if not _INTEGER.fullmatch(text) or len(text.lstrip("+-")) > 30:
            raise ValueError(f"{_flag(opt)} must be {where}, got {value!r}")
        text = int(text)
    if isinstance(text, bool) or not isinstance(text, int):
        raise ValueError(f"{_flag(opt)} must be {where}, got {value!r}")
    if allowed is None and text < 1:
        raise ValueError(f"{_flag(opt)} must be positive, got {value!r}")
    if allowed is not None and text not in allowed:
        raise ValueError(f"{_flag(opt)} must be {where}, got {value!r}")
    return text


def scheme_options(module, given: dict, fill_defaults: bool = True) -> dict:
    """The scheme's OPTIONS filled from `given` (strings from the command line), checked.

    OPTIONS maps each option to (default, allowed): a tuple of choices, or ``registry.Bounds`` for an
    integer (None: any positive integer).  A value outside them is a ValueError of one line naming
    the option and what it admits.  With fill_defaults=False only the options given are returned
    (checked all the same), so the scheme's function keeps its own defaults (validate runs every
    parameter set by default).
    """
    declared = getattr(module, "OPTIONS", {})
    unknown = set(given) - set(declared)
    if unknown:
        raise ValueError(f"unknown option(s) {', '.join(_flag(u) for u in sorted(unknown))} for this "
                         f"scheme (it takes: {', '.join(_flag(o) for o in declared) or 'none'})")
    options = {}
    for opt, (default, allowed) in declared.items():
        if opt not in given:
            if fill_defaults:
                options[opt] = default
            continue
        value = given[opt]
        if isinstance(allowed, registry.Bounds) or (allowed is None and isinstance(default, int)
                                                   and not isinstance(default, bool)):
            options[opt] = _integer_option(opt, value, allowed)
        elif allowed and value not in allowed:
            raise ValueError(f"{_flag(opt)} must be one of {', '.join(map(str, allowed))}, got {value!r}")
        else:
            options[opt] = value
    return options


def _extra_options(extra: list, given: set = frozenset()) -> dict:
    """`--name value` pairs left over by argparse, for scheme-specific options; an option given
    twice (here, or also as one of the command's own options in `given`) is refused."""
    out, it = {}, iter(extra)
    for tok in it:
        if not tok.startswith("--"):
            raise ValueError(f"unexpected argument {tok!r}")
        name, _, value = tok[2:].partition("=")
        if not value:
            value = next(it, None)
            if value is None or value.startswith("--"):
                raise ValueError(f"--{name} needs a value")
        key = name.replace("-", "_")
        if key in out or key in given:
            raise UsageError(f"--{name} given twice (give each option once)")
        out[key] = value
    return out


def _applies(module, options: dict, given: dict, source_kind: str | None = None) -> None:
    """Refuse a given option that the chosen model or source does not use.  A model module may declare
    OPTION_APPLIES = {option: {other option or "source": (values it applies with)}} (for "source",
    the kinds of measurement file: published, measured, ...); an option given where it does not
    apply would be dropped silently, so it is an error naming the option and when it applies."""
    def said(cond, value):
        return f"a {value} source" if cond == "source" else f"{_flag(cond)} {value}"

    applies = getattr(module, "OPTION_APPLIES", {})
    for opt in given:
        for cond, allowed in applies.get(opt, {}).items():
            if cond == "source" and source_kind is None:
                continue             # checked again once the source is loaded
            actual = source_kind if cond == "source" else options.get(cond)
            if actual not in allowed:
                where = f"a {actual} source (--source)" if cond == "source" else said(cond, actual)
                raise UsageError(f"{_flag(opt)} does not apply with {where}: it is used only with "
                                 f"{' or '.join(said(cond, a) for a in allowed)}")


def _bad_numbers(x, path="result", time_like=False):
    """(path, value) of every number in a JSON-ready result that is not finite, or negative where the
    key names a time (…_s, …_ms, seconds, ms)."""
    if isinstance(x, dict):
        for k, v in x.items():
            t = isinstance(k, str) and (k in ("seconds", "ms", "s") or k.endswith(("_s", "_ms", "_seconds")))
            yield from _bad_numbers(v, f"{path}.{k}", t or (time_like and isinstance(v, (int, float))))
    elif isinstance(x, (list, tuple)):
        for i, v in enumerate(x):
            yield from _bad_numbers(v, f"{path}[{i}]", time_like)
    elif isinstance(x, float) and not math.isfinite(x) or (
            isinstance(x, (int, float)) and not isinstance(x, bool) and time_like and x < 0):
        yield path, x


def _check_result(result, what: str) -> None:
    bad = next(_bad_numbers(result), None)
    if bad is not None:
        raise ValueError(f"{what}: {bad[0]} is {bad[1]}, not a finite non-negative time: the prices give no "
                         f"usable estimate here (measure the sizes this needs, or choose another source)")


class EstimateFailed(ValueError):
    """A scheme's estimate that failed with an arithmetic error at options it admits (a division by
    zero, an overflow): refused in one line that names the scheme, the options given and the cause.
    It is the scheme's mistake (its bounds admit a value it cannot price), and the scheme contract
    (tests/test_scheme_contract.py) fails the scheme for it."""


def scheme_estimate(name: str, module, mset, backends, options: dict, given: dict) -> dict:
    """`module`.estimate at `options`, checked: an arithmetic failure is an EstimateFailed, and a result
    with a number that is not a finite non-negative time is refused (``_check_result``), each in one
    line naming the scheme and the options given on the command line (`given`)."""
    where = f"estimate {name} " + (" ".join(f"{_flag(k)} {v}" for k, v in given.items()) or "at its defaults")
    try:
        with recording() as calls:
            result = module.estimate(mset, backends=backends, **options)
    except ArithmeticError as e:
        raise EstimateFailed(f"{where}: {type(e).__name__} in the scheme's estimate ({_message(e)}): its options "
                             f"admit a value it cannot price") from e
    _check_result(result, where)
    # every estimated time with its prediction interval (the one the chapters and the page show)
    result = prediction.predicted(name, mset, options, result, calls)
    _check_result(result, where)
    return result


def cmd_estimate(args) -> int:
    if args.scheme and args.counts:
        raise ValueError("give a SCHEME or --counts, not both (a scheme counts its own operations)")
    if not args.scheme and (args.params is not None or args.model is not None):
        raise ValueError("--params and --model choose a scheme's parameter set and model: give a SCHEME")
    if args.scheme:
        module = registry.model(args.scheme)
        given = dict(args.scheme_options)
        for opt in ("params", "model"):
            if getattr(args, opt, None) is not None:
                given[opt] = getattr(args, opt)
        options = scheme_options(module, given)
        _applies(module, options, given)
        source = args.source if args.source is not None else "published"
        if source == "published":
            source = f"published/{module.PUBLISHED}"
        mset = measurements.load_source(source)
        _applies(module, options, given, mset.kind)
        result = scheme_estimate(args.scheme, module, mset, _backends_arg(args.backend), options, given)
        text = (json.dumps(result, indent=2, allow_nan=False) if args.json
                else "\n".join(filter(None, (module.format_estimate(result), prediction.words(result)))))
        print(clean_text(text))
        return 0
    if args.counts is None:
        raise UsageError(f"estimate needs a SCHEME ({', '.join(sorted(registry.REGISTRY))}) "
                         f"or --counts '{COUNTS_EXAMPLE}'")
    mset = measurements.load_source(args.source if args.source is not None else "reference")
    est = price(_counts_arg(args.counts), mset, _backends_arg(args.backend), label="counts")
    _check_result(est.to_dict(), "estimate --counts")
    print(json.dumps(est.to_dict(), indent=2, allow_nan=False) if args.json else clean_text(str(est)))
    return 0


def _processes_arg(text: str | None) -> int:
    """--processes: an odd count of fresh processes from 1 to validation.MAX_PROCESSES (default
    validation.PROCESSES); 1 validates in this process."""
    if text is None:
        return validation.PROCESSES
    try:
        return validation.checked_processes(int(text) if text.isascii() and text.isdigit() else text,
                                            "--processes")
    except ValueError as e:
        raise UsageError(str(e)) from None


def cmd_validate(args) -> int:
    module = registry.model(args.scheme)
    if not hasattr(module, "validate"):
        raise UsageError(f"scheme {args.scheme!r} has no validation run (validate: "
                         f"{', '.join(n for n in sorted(registry.REGISTRY) if hasattr(registry.model(n), 'validate'))})")
    given = dict(args.scheme_options)
    if args.params is not None:
        given["params"] = args.params
    options = scheme_options(module, given, fill_defaults=False)
    unused = sorted(set(given) - registry.validation_takes(module))
    if unused:           # refused before anything runs: validate would drop them silently
        used = [o for o in getattr(module, "OPTIONS", {}) if o in registry.validation_takes(module)]
        raise UsageError(f"validate {args.scheme} does not use {', '.join(map(_flag, unused))} (it takes: "
                         f"{', '.join(map(_flag, used)) or 'no scheme options'}; the others are estimate's)")
    registry.check_validation_options(args.scheme, getattr(module, "VALIDATION_BOUNDS", {}), options)
    processes = _processes_arg(args.processes)
    result = (module.validate(**options) if processes == 1
              else validation.validate_in_processes(args.scheme, options, processes))
    print(json.dumps(result, indent=2) if args.json else clean_text(module.format_validation(result)))
    return 0


def _load_each(paths, describe, also=None) -> int:
    """Load every file, good ones described on stdout, bad ones one line each on stderr (a crash
    on one file does not stop the others); exit code 2 if any was bad.  `also(path, mset)` raises
    MeasurementFileError for what a file's place asks beyond the schema."""
    bad = 0
    for path in paths:
        try:
            m = measurements.load(path)
            if also is not None:
                also(path, m)
        except measurements.MeasurementFileError as e:
            print(f"costbook: error: {_message(e)}", file=sys.stderr)
            bad += 1
            continue
        except Exception as e:        # a bug, not the file's fault: say so, and go on
            print(f"costbook: internal error: {clean(str(path))}: {_message(e)}", file=sys.stderr)
            bad += 1
            continue
        print(clean(describe(path, m)))
    return 2 if bad else 0


def cmd_check(args) -> int:
    def describe(path, m):
        n = sum(len(v) for v in m.results.values())
        return f"ok  {path}: {m.kind} {m.name!r}, {len(m.results)} backend(s), {n} entries"

    def in_its_folder(path, m):
        from ..views import machines
        machines.check_in_folder(path, m)
    return _load_each(args.files, describe, in_its_folder)


def cmd_sources(args) -> int:
    project = measurements.project_root()
    paths = sorted((project / "measurements").glob("*/*.json"))
    if not paths:
        raise UsageError(f"no measurement files in {project / 'measurements'} (expected */*.json there)")
    return _load_each(paths, lambda path, m: f"{path.relative_to(project)}: {m.kind}, {m.name}, "
                                             f"backends {', '.join(m.backends)}")


def cmd_ledger(args) -> int:
    """Every figure the seeds print, beside the book's value and how the book got it; a scheme folder
    that cannot be read, or a scheme the book does not list, is one line on stderr and left out."""
    from ..views import ledger
    rows = ledger.ledger(args.scheme, args.status)
    for problem in registry.problems().values():
        print(f"costbook: warning: {clean(problem)} (left out of the ledger)", file=sys.stderr)
    print(ledger.dumps(rows) if args.json else clean_text(ledger.to_text(rows)))
    return 0


class _StoreOnce(argparse._StoreAction):
    """An option that takes a value, refused when given twice (argparse would keep the last)."""

    def __call__(self, parser, namespace, values, option_string=None):
        _once(parser, namespace, self.dest, option_string)
        super().__call__(parser, namespace, values, option_string)


class _StoreTrueOnce(argparse._StoreTrueAction):
    def __call__(self, parser, namespace, values, option_string=None):
        _once(parser, namespace, self.dest, option_string)
        super().__call__(parser, namespace, values, option_string)


def _once(parser, namespace, dest, option_string):
    seen = namespace.__dict__.setdefault("given_options", set())
    if option_string is not None and dest in seen:
        parser.error(f"{option_string} given twice (give each option once)")
    seen.add(dest)


class _Parser(argparse.ArgumentParser):
    """argparse, with its errors as one line (not the usage block) and exit code 2, and every option
    that is not repeatable (action="append") refused when given twice."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.register("action", "store", _StoreOnce)
        self.register("action", None, _StoreOnce)
        self.register("action", "store_true", _StoreTrueOnce)

    def error(self, message):
        message = " ".join(message.split())
        if dash := _VALUE_MISSING.fullmatch(message):
            # argparse reads a value starting with '-' as the next option and calls the value missing
            option = dash["option"]
            message = (f"{option} needs a value; a value that starts with '-' is given as {option}=VALUE "
                       f"(a file also as ./NAME)")
        self.exit(2, f"costbook: error: {clean(message)} (see {self.prog} --help)\n")


_VALUE_MISSING = re.compile(r"argument (?P<option>--?[\w-]+)(?:/--?[\w-]+)*: expected one argument")


def parser() -> argparse.ArgumentParser:
    """The command line's parser, built once for what the registry finds (it names the schemes and
    the folders left out; argparse spends milliseconds building it, which a caller running many
    commands in one process, as the tests do, pays at every command)."""
    return _parser(tuple(sorted(registry.REGISTRY)), tuple(registry.in_book_order()),
                   tuple(registry.refused().items()))


def _by_name(command: str):
    """The command function `command` of this module as it is when the command runs, not when the
    (cached) parser was built."""
    return lambda args: globals()[command](args)


@functools.lru_cache(maxsize=8)
def _parser(schemes: tuple, book_order: tuple, refused_folders: tuple) -> argparse.ArgumentParser:
    # a scheme folder that cannot be read is named in the help, each with its problem on one line
    refused = "\n".join(f"  {clean(problem)}" for _, problem in refused_folders)
    p = _Parser(prog="costbook", description=__doc__.split("\n\n")[0],
                formatter_class=argparse.RawDescriptionHelpFormatter,
                epilog=f"scheme folders left out:\n{refused}" if refused else None)
    sub = p.add_subparsers(dest="command", required=True)

    m = sub.add_parser("measure", help="time the primitives on this machine")
    m.add_argument("--profile", default="quick", choices=["quick", "full"])
    m.add_argument("--out", help="output file (default measurements/local/this-machine.json); not a directory, "
                                 "not a symbolic link (give its target); a run in progress to the same file "
                                 "makes a second one refuse to start")
    m.add_argument("--only", action="append", metavar="GLOB", help="only keys matching GLOB (repeatable)")
    m.add_argument("--backend", help="comma-separated backends to run")
    m.add_argument("--name", help="name recorded in the file")
    m.add_argument("--repeat", type=int, default=1, metavar="N",
                   help="run the whole selection N times back to back and record each key's spread between runs")
    m.add_argument("--no-progress", action="store_true")
    m.set_defaults(func=_by_name("cmd_measure"))

    d = sub.add_parser("measure-dalek", help="time curve25519-dalek 2.0.0, the punch-card seed's library "
                                             "(builds bench/curve25519-dalek; needs cargo)")
    d.add_argument("--profile", default="full", choices=["quick", "full"])
    d.add_argument("--out", help="output file (default: the committed "
                                 "measurements/seed-libraries/curve25519-dalek-2.0.0.json); not a directory or "
                                 "a symbolic link")
    d.set_defaults(func=_by_name("cmd_measure_dalek"))

    # allow_abbrev=False: scheme options such as --m (mix-servers) must not be taken for --model
    e = sub.add_parser("estimate", help="price a scheme or a count vector", allow_abbrev=False,
                       description="A scheme's estimate shows every time with its 90%% prediction interval: the "
                                   "prices' spread widened by the model's error, estimated from evidence the "
                                   "estimate is not judged by (costbook.calibration.prediction).  In --json, low_s/high_s "
                                   "(<name>_low_s, ...) are that interval, price_low_s/price_high_s the prices' "
                                   "spread alone, and 'prediction' lists every priced step with both.  A --counts "
                                   "estimate shows the prices' spread alone (no scheme, no model to be wrong).")
    e.add_argument("scheme", nargs="?", help=f"one of: {', '.join(schemes) or '(none yet)'}")
    e.add_argument("--counts", help="JSON object key -> count (finite, 0 to 1e15, fractions allowed), "
                                    "or @file.json")
    e.add_argument("--source", help="reference | local | book | published | published/NAME | public/NAME | "
                                   "contributed/NAME | FILE")
    e.add_argument("--backend", help="comma-separated backend preference list")
    e.add_argument("--params", help="named parameter set of the scheme")
    e.add_argument("--model", help="which cost model of the scheme")
    e.add_argument("--json", action="store_true", help="machine-readable output")
    e.set_defaults(func=_by_name("cmd_estimate"))

    v = sub.add_parser("validate", help="run a scheme and compare measured with predicted step times",
                       allow_abbrev=False)
    v.add_argument("scheme")
    v.add_argument("--params", help="one named parameter set (default: all of them)")
    v.add_argument("--processes", help=f"validate in this many fresh processes, one after another, and report "
                                       f"each step's median process (odd, 1 to {validation.MAX_PROCESSES}; default "
                                       f"{validation.PROCESSES}: one run in this process, the statistic the 90%% "
                                       f"intervals are calibrated on)")
    v.add_argument("--json", action="store_true")
    v.set_defaults(func=_by_name("cmd_validate"))

    c = sub.add_parser("check", help="schema-check measurement files")
    c.add_argument("files", nargs="+", type=Path)
    c.set_defaults(func=_by_name("cmd_check"))

    s = sub.add_parser("sources", help="list known measurement files")
    s.set_defaults(func=_by_name("cmd_sources"))

    from ..views.ledger import STATUSES as LEDGER_STATUSES
    g = sub.add_parser("ledger", help="the reproduction ledger: every seed figure and the book's value")
    g.add_argument("--json", action="store_true", help='{"summary": ..., "rows": [...]}')
    g.add_argument("--scheme", help=f"one of: {', '.join(book_order) or '(none yet)'}")
    g.add_argument("--status", choices=list(LEDGER_STATUSES))
    g.set_defaults(func=_by_name("cmd_ledger"))

    from ..views import zkalc_commands            # import zkalc / export zkalc: their own module
    zkalc_commands.register(sub, out_path)
    return p


_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def clean(text: str) -> str:
    """`text` with every control character (and an undecodable byte of a file name) escaped as
    \\xNN or \\uNNNN, so that an echoed name cannot move the cursor, clear the terminal or break
    the one-line contract."""
    return _UNPRINTABLE.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 256
                            else f"\\u{ord(m.group()):04x}", text)


def clean_text(text: str) -> str:
    """Text of several lines (an estimate, a table) with `clean` applied to each line."""
    return "\n".join(clean(line) for line in text.split("\n"))


def _message(e: BaseException) -> str:
    """An exception as one line of text, without its class name, control characters escaped."""
    text = clean(str(e.args[0] if isinstance(e, KeyError) and e.args else e).strip())
    return text or "no message (a bug: please report the command line)"


#: commands whose arguments are file names, and the options each has
FILE_COMMANDS = {"check": ("-h", "--help")}


def _refuse_dash_files(argv: list) -> None:
    """A file name that starts with '-' (`costbook check -x.json`) is not guessed at: as GNU tools do,
    it is refused in one line that says how to give it (./-x.json, or after --), so that what a
    command line means never depends on which files exist."""
    if not argv or argv[0] not in FILE_COMMANDS:
        return
    for arg in argv[1:]:
        if arg == "--":
            return
        if arg.startswith("-") and arg not in FILE_COMMANDS[argv[0]]:
            raise UsageError(f"{clean(arg)}: not an option of costbook {argv[0]}; a file whose name starts "
                             f"with '-' is given as ./{clean(arg)} or after --: costbook {argv[0]} -- {clean(arg)}")


def main(argv=None) -> int:
    """Run one command; every failure is one line on stderr: exit 2 for bad input, 1 for a bug,
    130 when interrupted.  No traceback reaches the user."""
    def on_sigterm(signum, frame):
        # a worker of `costbook validate` ends now, not when its pool would have waited for it
        children.end_children()
        raise Terminated(signum)

    def on_sigint(signum, frame):
        children.end_children()
        raise KeyboardInterrupt

    main_thread = threading.current_thread() is threading.main_thread()
    if main_thread:
        children.cysignals_first()
    previous = {sig: signal.signal(sig, handler) for sig, handler in
                ((signal.SIGTERM, on_sigterm), (signal.SIGINT, on_sigint))} if main_thread else {}
    try:
        p = parser()
        _refuse_dash_files(list(sys.argv[1:] if argv is None else argv))
        try:
            args, extra = p.parse_known_args(argv)
        except SystemExit as e:       # --help (0) or a one-line parser error (2)
            return e.code if isinstance(e.code, int) else 2
        if extra and not (args.command in ("estimate", "validate") and args.scheme):
            print(f"costbook: error: unrecognized arguments: {clean(' '.join(extra))} (see costbook "
                  f"{args.command} --help)", file=sys.stderr)
            return 2
        args.scheme_options = _extra_options(extra, getattr(args, "given_options", set()))
        return args.func(args)
    except (measurements.MeasurementFileError, MissingPrice, UnknownPrimitiveKey, KeyError, ValueError,
            OverflowError) as e:
        print(f"costbook: error: {_message(e)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        children.end_children()
        print("costbook: interrupted", file=sys.stderr)
        return 128 + signal.SIGINT
    except Terminated as e:
        print("costbook: terminated", file=sys.stderr)
        return 128 + e.signum
    except BrokenPipeError:
        # the reader went away (costbook ... | head): stop quietly, and keep Python's final flush
        # of stdout from reporting the broken pipe once more
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 128 + signal.SIGPIPE
    except OSError as e:               # the disk, not the input: a read-only folder, a full disk
        where = f"{clean(str(e.filename))}: " if getattr(e, "filename", None) else ""
        print(f"costbook: error: {where}{(e.strerror or str(e)).lower()}", file=sys.stderr)
        try:                           # what stdout still holds would fail once more at exit
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 2
    except Exception as e:
        print(f"costbook: internal error: {_message(e)}", file=sys.stderr)
        return 1
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


if __name__ == "__main__":
    sys.exit(main())
