"""The `costbook import zkalc` and `costbook export zkalc` commands (registered by ``cli.parser``).

    costbook import zkalc FILE --library L --machine M [--curve C] [--repository R --commit C --path P]
                               [--complete [--evidence FILE ...]] [--out OUT]
    costbook export zkalc [--source S] [--backend B] [--curve C] [--out OUT]

`import` reads a zkalc file (``costbook.zkalc``) into a measurement file of kind ``public``; with
``--complete`` every price the reference file has and the zkalc file lacks is completed from the
reference machine's ratios (``costbook.public``), its margin estimated from the ``--evidence`` files
(zkalc files of other machines, same library and curve).  `export` writes the keys of one backend that
have a zkalc name, as a zkalc file.  Both write through a temporary file and a rename (``--out``), or
print to stdout.  Bad input is one line and exit 2, through ``cli.main``.
"""
from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

from . import atomic, measurements, public, zkalc

_SOURCE_FIELDS = ("repository", "commit", "path")


def register(sub, out_path) -> None:
    """Add `import` and `export` to the CLI's subparsers; `out_path` checks an --out value (cli.out_path)."""
    imp = sub.add_parser("import", help="read another tool's benchmark file into a measurement file")
    isub = imp.add_subparsers(dest="format", required=True)
    z = isub.add_parser("zkalc", help="a zkalc file (data/<curve>/<library>/<machine>.json of zkalc)")
    z.add_argument("file", type=Path)
    z.add_argument("--library", required=True, help="the library the file times (the backend it becomes)")
    z.add_argument("--machine", required=True, help="the machine it was timed on, in words")
    z.add_argument("--curve", help=f"the file's curve (default: its folder in zkalc's layout; one of "
                                   f"{', '.join(sorted(zkalc.CURVES))})")
    for field in _SOURCE_FIELDS:
        z.add_argument(f"--{field}", help=f"the zkalc {field} the file is from, recorded in its provenance")
    z.add_argument("--complete", action="store_true",
                   help="complete every price the reference file has and this file lacks from the reference "
                        "machine's ratios (costbook.public)")
    z.add_argument("--evidence", action="append", type=Path, metavar="FILE",
                   help="with --complete: a zkalc file of another machine (same library and curve) whose stated "
                        "prices estimate the margin of a completed price (repeatable)")
    z.add_argument("--out", help="the measurement file to write (default: stdout)")
    z.set_defaults(func=lambda args: cmd_import(args, out_path))

    exp = sub.add_parser("export", help="write a measurement file's prices in another tool's format")
    esub = exp.add_subparsers(dest="format", required=True)
    e = esub.add_parser("zkalc", help="a zkalc file of one backend and curve (the keys with a zkalc name)")
    e.add_argument("--source", default="reference", help="reference | local | published/NAME | FILE "
                                                         "(default: reference)")
    e.add_argument("--backend", default="arkworks", help="the backend (library) to write (default: arkworks)")
    e.add_argument("--curve", default="bls12_381", help="the curve to write (default: bls12_381)")
    e.add_argument("--out", help="the zkalc file to write (default: stdout)")
    e.set_defaults(func=lambda args: cmd_export(args, out_path))


def _command(args) -> str:
    """The import's command line, rebuilt from its arguments, for the provenance."""
    words = ["costbook", "import", "zkalc", str(args.file), "--library", args.library]
    words += ["--curve", args.curve] if args.curve else []
    words += ["--machine", args.machine]
    for f in _SOURCE_FIELDS:
        words += [f"--{f}", getattr(args, f)] if getattr(args, f) is not None else []
    words += ["--complete"] if args.complete else []
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
    if args.evidence and not args.complete:
        raise zkalc.ZkalcFileError("--evidence: only with --complete (it sets a completed price's margin)")
    mset = zkalc.to_measurements(args.file, args.library, args.machine, args.curve, source=given or None,
                                 command=_command(args))
    if args.complete:
        reference = measurements.load_source("reference")
        # a file is its bytes: the file itself renamed, or one machine given twice, is no further evidence
        seen = {_digest(args.file): args.file}
        for f in args.evidence or ():
            earlier = seen.setdefault(_digest(f), f)
            if earlier is not f:
                what = ("the file being completed cannot be evidence of its own margin" if earlier is args.file
                        else f"the same file as --evidence {earlier}: one machine counts once")
                raise zkalc.ZkalcFileError(f"--evidence {f}: {what}")
        evidence = [zkalc.to_measurements(f, args.library, f.stem, args.curve or zkalc.curve_of(args.file))
                    for f in args.evidence or ()]
        mset = public.complete(mset, reference, evidence, command=_command(args))
    if out is None:
        print(json.dumps(mset.to_json(), indent=1))
        sys.stdout.flush()                    # a full disk or a closed pipe is said here, in one line
    else:
        print(measurements.write_atomic(mset, out))
    return 0


def _digest(path: Path) -> str:
    """The sha256 of a zkalc file's text (read as every zkalc file is: checked, capped)."""
    import hashlib
    text = measurements.read_text(path, error=zkalc.ZkalcFileError, what="zkalc file")
    return hashlib.sha256(" ".join(text.split()).encode("utf-8")).hexdigest()


def cmd_export(args, out_path) -> int:
    out = out_path(args.out) if args.out is not None else None
    mset = measurements.load_source(args.source)
    data = zkalc.from_measurements(mset, args.backend, args.curve)
    text = json.dumps(data, indent=2) + "\n"
    zkalc.parse(text, "<export>")          # what we write, a zkalc reader reads
    if out is None:
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        atomic.write_text(out, text, durable=True)
        print(out)
    return 0


