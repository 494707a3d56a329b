"""The `costbook import zkalc` and `costbook export zkalc` commands (registered by ``cli.parser``).

    costbook import zkalc FILE [--library L] [--machine M] [--curve C] [--repository R --commit C --path P]
                               [--complete [--evidence FILE ...] | --stated-only] [--out OUT]
    costbook export zkalc [--source S] [--backend B] [--curve C] [--out OUT]

`import` reads a zkalc file (``costbook.views.zkalc``) into a measurement file of kind ``public``.  With the
file alone, its curve and library come from its folders in zkalc's layout, and every price the
reference file has and the zkalc file lacks is completed from the reference machine's ratios
(``costbook.views.public``; another library or curve than the reference's through the public machines'
arkworks BLS12-381), the margin estimated from the zkalc files of other machines the book holds
(measurements/public/zkalc/) or from ``--evidence`` files; one line on stderr says what was stated,
what was completed and from what.  ``--stated-only`` keeps zkalc's prices alone.  `export` writes the keys of one backend that
have a zkalc name, as a zkalc file, and sets its machine's entry in zkalc's machines.json.
Both write through a temporary file and a rename (``--out``), or
print to stdout.  Bad input is one line and exit 2, through ``cli.main``.
"""
from __future__ import annotations

import json
import math
import shlex
import sys
from pathlib import Path

from ..system import atomic
from ..prices import measurements
from . import public, zkalc

_SOURCE_FIELDS = ("repository", "commit", "path")


def register(sub, out_path) -> None:
    """Add `import` and `export` to the CLI's subparsers; `out_path` checks an --out value (cli.out_path)."""
    imp = sub.add_parser("import", help="read another tool's benchmark file into a measurement file")
    isub = imp.add_subparsers(dest="format", required=True)
    z = isub.add_parser("zkalc", help="a zkalc file (data/<curve>/<library>/<machine>.json of zkalc)")
    z.add_argument("file", type=Path)
    z.add_argument("--library", help="the library the file times, the backend it becomes (default: its folder "
                                     "in zkalc's layout)")
    z.add_argument("--machine", help="the machine it was timed on, in words (default: the book's words for a "
                                     "zkalc machine it transcribes, else the file's name)")
    z.add_argument("--curve", help=f"the file's curve (default: its folder in zkalc's layout; one of "
                                   f"{', '.join(sorted(zkalc.CURVES))})")
    for field in _SOURCE_FIELDS:
        z.add_argument(f"--{field}", help=f"the zkalc {field} the file is from, recorded in its provenance")
    z.add_argument("--complete", action="store_true",
                   help="complete every price the reference file has and this file lacks from the reference "
                        "machine's ratios (costbook.views.public), or refuse saying what is missing; without it "
                        "the import completes what it can and says why not otherwise")
    z.add_argument("--stated-only", action="store_true", help="keep only the prices zkalc states (no completion)")
    z.add_argument("--evidence", action="append", type=Path, metavar="FILE",
                   help="a zkalc file of another machine (same library and curve) whose stated prices estimate "
                        "the margin of a completed price (repeatable; default: the zkalc files the book holds)")
    z.add_argument("--out", help="the measurement file to write (default: stdout)")
    z.set_defaults(func=lambda args: cmd_import(args, out_path))

    exp = sub.add_parser("export", help="write a measurement file's prices in another tool's format")
    esub = exp.add_subparsers(dest="format", required=True)
    e = esub.add_parser("zkalc", help="a zkalc file of one backend and curve (the keys with a zkalc name)")
    e.add_argument("--source", default="reference", help="reference | local | published/NAME | FILE "
                                                         "(default: reference)")
    e.add_argument("--backend", help="the backend (library) to write (default: the library a zkalc import "
                                     "states, else arkworks)")
    e.add_argument("--curve", help="the curve to write (default: the curve a zkalc import states, else bls12_381)")
    e.add_argument("--out", help="the zkalc file to write (default: stdout)")
    e.set_defaults(func=lambda args: cmd_export(args, out_path))


def _command(args) -> str:
    """The import's command line, rebuilt from its arguments, for the provenance."""
    words = ["costbook", "import", "zkalc", str(args.file)]
    words += ["--library", args.library] if args.library else []
    words += ["--curve", args.curve] if args.curve else []
    words += ["--machine", args.machine] if args.machine else []
    for f in _SOURCE_FIELDS:
        words += [f"--{f}", getattr(args, f)] if getattr(args, f) is not None else []
    words += ["--complete"] if args.complete else []
    words += ["--stated-only"] if args.stated_only else []
    for e in args.evidence or ():
        words += ["--evidence", str(e)]
    words += ["--out", args.out] if args.out is not None else []
    return shlex.join(words)


def cmd_import(args, out_path) -> int:
    out = out_path(args.out) if args.out is not None else None
    given = {f: getattr(args, f) for f in _SOURCE_FIELDS if getattr(args, f) is not None}
    if given and len(given) != len(_SOURCE_FIELDS):
        missing = [f"--{f}" for f in _SOURCE_FIELDS if f not in given]
        raise zkalc.ZkalcFileError(f"{', '.join(missing)}: give --repository, --commit and --path together "
                                   f"(where the file is from)")
    if args.stated_only and (args.complete or args.evidence):
        raise zkalc.ZkalcFileError("--stated-only: not with --complete or --evidence (it completes nothing)")
    library = zkalc.library_of(args.file, args.library)
    curve = zkalc.curve_of(args.file, args.curve)
    mset = zkalc.to_measurements(args.file, library, args.machine or _machine_words(args.file), curve,
                                 source=given or None, command=_command(args))
    reference = measurements.load_source("reference")
    completing = not args.stated_only
    why_not = None
    if completing:
        # a file is its bytes: the file itself renamed, or one machine given twice, is no further evidence
        seen = {_digest(args.file): args.file}
        given_evidence = args.evidence is not None
        # the machine itself (its zkalc name) is never evidence of its own margin
        held = [f for name, f in public.held(library, curve).items() if name != args.file.stem]
        for f in args.evidence if given_evidence else held:
            earlier = seen.setdefault(_digest(f), f)
            if earlier is not f and given_evidence:
                what = ("the file being completed cannot be evidence of its own margin" if earlier is args.file
                        else f"the same file as --evidence {earlier}: one machine counts once")
                raise zkalc.ZkalcFileError(f"--evidence {f}: {what}")
        evidence = [zkalc.to_measurements(f, library, f.stem, curve) for f in seen.values() if f is not args.file]
        try:
            mset = public.complete(mset, reference, evidence, command=_command(args),
                                   partners=None if public.prices_own(reference, library, curve) else _partners(reference))
        except public.CompletionError as e:
            if args.complete:                    # asked for: refused, saying what is missing
                raise
            completing, why_not = False, str(e)  # the default: zkalc's prices alone, and why
    print(f"costbook: {_summary(mset, library, reference, completing, why_not)}", file=sys.stderr)
    if out is None:
        print(json.dumps(mset.to_json(), indent=1))
        sys.stdout.flush()                    # a full disk or a closed pipe is said here, in one line
    else:
        print(measurements.write_atomic(mset, out))
    return 0


def _machine_words(path: Path) -> str:
    """The book's words for the zkalc machine a file times (the public machine transcribing the same
    zkalc file name), else the file's name as zkalc names the machine."""
    for m in public.sources():
        if Path(m["file"]).name == Path(path).name:
            return m["machine"]
    return f"{Path(path).stem} (zkalc's machine name)"


def _partners(reference) -> dict:
    """{zkalc machine name: transcription} of the held files of the library and curve another library's
    or curve's ratios are carried through (``public.bridge_library``)."""
    return public.held_transcriptions(*public.bridge_library(reference))


def _summary(mset, library: str, reference, completing: bool, why_not: str | None = None) -> str:
    """The one line an import says of what it holds: stated, completed, and from what."""
    completion = mset.provenance.get("completion") or {}
    stated = sum(1 for k in mset.keys(library) if public.is_stated(mset, library, k))
    if completing:
        via = completion.get("via")
        bridged = (f", carried to its {via['library']} {via['curve']} prices by zkalc's ratio of the two on "
                   f"{len(via['machines'])} machines" if via else "")
        return (f"{stated} prices stated by zkalc ({library}), {completion.get('completed')} completed from the "
                f"{reference.name} machine's ratios{bridged}, their margin a factor of "
                f"{math.exp(completion['margin']):.2f} from {completion.get('margin_scores')} stated prices of "
                f"{len(completion.get('margin_from') or [])} other machines")
    why = why_not or "--stated-only"
    return (f"{stated} prices stated by zkalc ({library}), none completed ({why}): a scheme's estimate needs "
            f"every price it reads, so most need another file's prices too")


def _digest(path: Path) -> str:
    """The sha256 of a zkalc file's text (read as every zkalc file is: checked, capped)."""
    import hashlib
    text = measurements.read_text(path, error=zkalc.ZkalcFileError, what="zkalc file")
    return hashlib.sha256(" ".join(text.split()).encode("utf-8")).hexdigest()


def cmd_export(args, out_path) -> int:
    out = out_path(args.out) if args.out is not None else None
    mset = measurements.load_source(args.source)
    # a file imported from zkalc goes back as the library and curve it came as
    stated = mset.provenance.get("source") if isinstance(mset.provenance.get("source"), dict) else {}
    backend = args.backend or str(stated.get("library") or "arkworks")
    curve = args.curve or str(stated.get("curve") or "bls12_381")
    data = zkalc.from_measurements(mset, backend, curve)
    # a zkalc import's median is zkalc's own mean; any other median is not
    medians = sum(1 for k, _, _ in zkalc.written(mset, backend, curve) if "zkalc" not in mset.entry(backend, k)
                  and zkalc.zkalc_statistic(mset.entry(backend, k)) == "median")
    text = json.dumps(data, indent=2) + "\n"
    zkalc.parse(text, "<export>")          # what we write, a zkalc reader reads
    if out is None:
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        atomic.write_text(out, text, durable=True)
        print(out)
        print(_add_machine(machines_file(Path(out)), Path(out).stem, zkalc.machine_entry(mset)))
    if medians:     # zkalc's files hold means: say where this one could not
        print(f"costbook: {medians} of the written timings are medians, not means ({mset.name} keeps no samples' "
              f"mean and sd for them: a measurement from costbook measure does)", file=sys.stderr)
    return 0


def machines_file(out: Path) -> Path:
    """Where zkalc looks for the machine of a file at `out`: its data folder's machines.json when `out`
    lies where zkalc keeps its files (data/<curve>/<library>/<machine>.json), else the one beside it."""
    if out.parent.parent.name in zkalc.CURVES:
        return out.parents[2] / "machines.json"
    return out.parent / "machines.json"


def _add_machine(path: Path, machine_id: str, entry: dict) -> Path:
    """zkalc's data/machines.json (``machines_file``), with `machine_id` (the file's name, as zkalc
    names a machine) set to `entry`; the other machines of an existing file kept."""
    machines = {}
    if path.exists():
        text = measurements.read_text(path, error=zkalc.ZkalcFileError, what="zkalc machines file")
        machines = measurements.parse_json(text, str(path), error=zkalc.ZkalcFileError)
        if not isinstance(machines, dict):
            raise zkalc.ZkalcFileError(f"{path}: not zkalc's machines.json (an object of machines by name)")
    machines[machine_id] = entry
    return atomic.write_text(path, json.dumps(machines, indent=4, sort_keys=True) + "\n", durable=True)


