"""Collect the evidence of the model's error: every scheme's CALIBRATION_CASES validated in fresh
processes, each scheme's written to its own file, ``<its folder>/evidence/validation/<machine>.json``.

    python -m costbook.book calibrate [--processes 2] [--beside-busy] [--replace] [SCHEME ...]   # make calibrate

Each result says its conditions: "quiet", or "beside a CPU-bound process" (--beside-busy: the
collector runs one beside itself for the whole collection), because a run is judged under either and
its evidence must hold both.  A collection adds its results to the file's, and the file's
"collections" list says when each was made and how: the machine's noise changes from hour to hour
(one quiet quarter of an hour's runs, alone, gave intervals of 3.6% half-width that the next quarter's
runs of the mixnet left 5 times in 22), so the evidence must span more than one sitting.  After a
change to a scheme's model (a term added to its counts or its prediction), --replace drops that
scheme's earlier results under the collection's conditions: they are residuals of another model.
A scheme's
file holds its results only, so that collecting one scheme rewrites no other's.  The book's prediction
intervals (``costbook.calibration.uncertainty``) read the committed files; a check is never judged by its
own scheme's results at its own size.
"""
from __future__ import annotations

import argparse
import datetime
import json
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Mapping, Sequence

from ..system import atomic, children, unwinding
from .. import registry
from . import uncertainty
from ..timing.measure import machine_label
from ..prices.measurements import parse_json, read_text
from .validation import validate_in_processes


def cases(names) -> list:
    """(scheme, options) of every CALIBRATION_CASES of `names`, in book order."""
    return [(s, dict(o)) for s in names for o in registry.manifest(s).CALIBRATION_CASES]


def machine_file_name(machine: str) -> str:
    """The name evidence of `machine` is filed under (``<name>.json``): that of any scheme's committed file
    timed on it (the reference machine's is named as its measurement file), else one made of its words."""
    for path in uncertainty.evidence_files():
        try:
            if json.loads(path.read_text(encoding="utf-8")).get("machine") == machine:
                return path.stem
        except (OSError, ValueError, AttributeError):
            continue
    return re.sub(r"[^a-z0-9]+", "-", re.sub(r"\((r|tm)\)", "", machine.lower())).strip("-") or "this-machine"


def default_out(scheme: str, machine: str | None = None) -> Path:
    """`scheme`'s evidence file of this machine (`machine`, default ``machine_label()``)."""
    name = machine_file_name(machine or machine_label())
    return uncertainty.evidence_dir(scheme) / "validation" / f"{name}.json"


QUIET, BUSY = "quiet", "beside a CPU-bound process"
#: a collection begun within this long of the last one in the evidence (its end, or its start where it
#: did not record its end) joins its sitting (make calibrate's collection beside a busy process follows its
#: quiet one); a longer pause begins another sitting, for the machine's noise changes over hours: one host
#: was calm at one hour and slowed in bursts two hours later
SITTING_GAP = datetime.timedelta(minutes=30)


def sitting_of(collections: Sequence[Mapping], started: datetime.datetime) -> str:
    """The sitting of a collection begun at `started` (aware): that of the latest of `collections` (every
    evidence file's it adds to) if it ended at most SITTING_GAP before, else one beginning at `started`."""
    def last_seen(c):
        try:
            when = datetime.datetime.fromisoformat(c.get("ended") or c["started"])
        except (KeyError, TypeError, ValueError):
            return None
        return when if when.tzinfo is not None else None
    dated = [(last_seen(c), c) for c in collections if last_seen(c) is not None]
    if dated:
        when, last = max(dated, key=lambda t: t[0])
        if last.get(uncertainty.SITTING_FIELD) and datetime.timedelta(0) <= started - when <= SITTING_GAP:
            return last[uncertainty.SITTING_FIELD]
    return started.astimezone(datetime.timezone.utc).strftime(uncertainty.SITTING_FORMAT)


def collect(cases: Sequence[tuple], out: Path, processes: int = 2, machine: str = "", command: str = "",
            keep: Sequence[Mapping] = (), progress=None, conditions: str = QUIET,
            collections: Sequence[Mapping] = (), sitting: str = "") -> dict:
    """Validate each (scheme, options) of `cases` in `processes` fresh processes, one after another,
    and write every process's result, after the results in `keep`, to `out` (atomically: an
    interrupted collection leaves the previous file), with this collection added to `collections`.
    Each process is a result of its own: the evidence keeps the spread between processes that the
    gate meets.  Every result names its `sitting` (default ``sitting_of`` `collections`)."""
    now = datetime.datetime.now(datetime.timezone.utc)
    started, sitting = now.isoformat(timespec="seconds"), sitting or sitting_of(collections, now)
    results = list(keep)
    for scheme, options in cases:
        if progress:
            progress(scheme, options)
        for _ in range(processes):
            r = validate_in_processes(scheme, options, 1)
            results.append({**{k: v for k, v in r.items() if k != "processes"}, "options": dict(options),
                            "conditions": conditions, "date": datetime.date.today().isoformat(),
                            uncertainty.SITTING_FIELD: sitting})
    data = {"format": uncertainty.FORMAT, "machine": machine, "date": datetime.date.today().isoformat(),
            "command": command, "level": uncertainty.NOMINAL,
            "collections": [*collections, {"started": started, "machine": machine, "command": command,
                                           "conditions": conditions, "results": len(results) - len(keep),
                                           uncertainty.SITTING_FIELD: sitting,
                                           "ended": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}],
            "results": results}
    # what the margins would refuse to read is not written (a validate result that does not name its scheme)
    uncertainty.check_evidence(data, out)
    Path(out).parent.mkdir(parents=True, exist_ok=True)       # a scheme's first evidence of this machine
    atomic.write_text(Path(out), json.dumps(data, indent=1, allow_nan=False) + "\n", durable=True)
    return data


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m costbook.book calibrate", description=__doc__.split("\n\n")[0])
    ap.add_argument("schemes", nargs="*", help="schemes to (re-)collect (default: all)")
    ap.add_argument("--processes", type=int, default=2, help="fresh processes per case (default 2)")
    ap.add_argument("--out", type=Path, default=None, help="one evidence file for every scheme collected (default: "
                    "each scheme's own, <its folder>/evidence/validation/<this machine>.json)")
    ap.add_argument("--beside-busy", action="store_true", help="collect with a CPU-bound process running beside")
    ap.add_argument("--replace", action="store_true",
                    help="drop the schemes' earlier results under these conditions (after a change to their model)")
    args = ap.parse_args(argv)
    known = registry.in_book_order()
    unknown = [s for s in args.schemes if s not in known]
    if unknown or not 1 <= args.processes <= 9:
        print(f"calibrate: unknown scheme {', '.join(unknown)} (known: {', '.join(known)})" if unknown
              else f"calibrate: --processes must be from 1 to 9, got {args.processes}", file=sys.stderr)
        return 2
    names = args.schemes or list(known)
    conditions = BUSY if args.beside_busy else QUIET
    machine = machine_label()
    # each scheme's own file of this machine, or one --out for all: (file, its schemes, kept, collections)
    plans = []
    for out, mine in ([(args.out, names)] if args.out else [(default_out(s, machine), [s]) for s in names]):
        kept, collections = [], []
        if out.exists():
            try:
                before = parse_json(read_text(out, error=uncertainty.EvidenceError, what="evidence file"), str(out),
                                    error=uncertainty.EvidenceError)
                uncertainty.check_evidence(before, out, None if args.out else mine[0])
            except uncertainty.EvidenceError as e:
                print(f"calibrate: error: {e} (it is added to, not replaced: mend it or give another --out)",
                      file=sys.stderr)
                return 2
            if before["machine"] != machine:      # evidence is filed under the machine it was timed on
                print(f"calibrate: error: {out} holds evidence timed on {before['machine']!r}, and this is "
                      f"{machine!r}: give another --out, or none (each scheme's file of this machine)", file=sys.stderr)
                return 2
            collections = before.get("collections", [])
            kept = [r for r in before["results"]
                    if not args.replace or r["scheme"] not in mine or r.get("conditions", QUIET) != conditions]
        plans.append((out, mine, kept, collections))
    todo = cases(names)
    # one sitting for every file of this collection, joined to the last one's if it was just before
    sitting = sitting_of([c for plan in plans for c in plan[3]], datetime.datetime.now(datetime.timezone.utc))
    print(f"calibrate: {len(todo)} cases x {args.processes} processes, {conditions}, into "
          f"{', '.join(str(plan[0]) for plan in plans)}", flush=True)

    def stop(signum, frame):
        # the workers and the companion end now (a pool would wait for its running worker); then unwind
        # (a second signal is ignored from the `except` on: ignored here, a first one lost where Python
        # cannot raise would not be sent again)
        children.end_children()
        raise Stopped(signum)

    unwinding.resend_lost_signals()
    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    busy, written, out = None, 0, plans[0][0]
    command = "python -m costbook.book calibrate " + " ".join(sys.argv[1:] if argv is None else argv)
    try:
        if args.beside_busy:
            # a terminal's Ctrl-C reaches the whole group: the companion leaves it to its parent, which
            # ends it, instead of printing a KeyboardInterrupt of its own (held while it starts)
            with children.ctrl_c_held():
                busy = subprocess.Popen([sys.executable, "-c", "import signal\nsignal.signal(signal.SIGINT, "
                                         "signal.SIG_IGN)\nwhile 1: pass"], preexec_fn=children.die_with_parent,
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for out, mine, kept, collections in plans:      # each file written whole, atomically, in its turn
            data = collect(cases(mine), out, args.processes, machine, command, keep=kept,
                           progress=lambda s, o: print(f"  {s} {o}", flush=True), conditions=conditions,
                           collections=collections, sitting=sitting)
            written += len(data["results"])
    except Stopped as e:
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, signal.SIG_IGN)
        print(f"calibrate: interrupted ({signal.Signals(e.signum).name}); {out} left as it was", file=sys.stderr)
        return 128 + e.signum
    finally:
        if busy is not None:
            busy.kill()
            busy.wait()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    print(f"calibrate: {written} results written", flush=True)
    return 0


class Stopped(BaseException):
    """SIGINT or SIGTERM during a collection."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


if __name__ == "__main__":
    raise SystemExit(main())
