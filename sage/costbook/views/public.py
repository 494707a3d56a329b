"""Public machines: zkalc's transcribed prices [@zkalc], completed from the reference machine's ratios.

A zkalc file prices a curve's operations in one library (for BLS12-381 in arkworks: the G1 and G2
multiplications, the pairing, MSMs, products of pairings); the book's schemes need more (modular
exponentiations, ristretto255, hashes, BN254 in mcl).  ``complete`` fills every price the reference
machine has and the zkalc file lacks the way the seeds' machines are completed: the reference price
scaled by this machine's ratio to the reference machine on an *anchor*, an operation both timed in the
same library,

    price(key) = reference(key) x zkalc(anchor) / reference_library(anchor),

the anchor the first of ``anchor_candidates(key)`` the file has (G2 work on the G2 multiplication,
target-group and pairing work on the pairing, everything else on the G1 multiplication).  Each
completed entry is marked ``completed`` (its anchor, ratio and margin) and says so in ``basis``.

Its interval is the reference price's bounds times the anchor's bounds ratio, widened by the error of
carrying a ratio from one machine to another (``carry_margin``): the conformal quantile at the book's
nominal level (``uncertainty.NOMINAL``) of |ln(zkalc(key) / completed(key))| over the prices the
*other* public machines state and the reference machine also has, each predicted from its own anchor
as if it were missing.  The machine being completed never judges its own margin.  What the evidence
covers: operations of one library on one curve; a completed price of another library (GMP's modular
exponentiations, libsodium, CPython's hashing) carries a ratio across libraries as well as machines,
an error the evidence cannot see.
"""
from __future__ import annotations

import math
import shlex
import sys

from ..prices import measurements
from ..calibration import uncertainty
from ..prices.keys import family_of, sort_key

#: the anchors of a key's work, first present wins (operations of the transcribed curve)
G2_ANCHORS = ("g2_mul", "g1_mul", "pairing")
GT_ANCHORS = ("pairing", "g2_mul", "g1_mul")
G1_ANCHORS = ("g1_mul", "g2_mul", "pairing")


class CompletionError(ValueError):
    """A completion that cannot be done honestly (no anchor, no reference library, too little evidence)."""


def anchor_candidates(key: str) -> tuple:
    """The anchor operations (without curve) whose machine ratio carries `key`'s price, in order."""
    family_of(key)
    op = key.split("/")[1] if key.startswith(("bls12_381/", "bn254/")) else ""
    if op.startswith(("g2_", "hash_to_g2")):
        return G2_ANCHORS
    if op.startswith(("gt_", "pairing")):
        return GT_ANCHORS
    return G1_ANCHORS


def anchor_for(key: str, transcribed: measurements.MeasurementSet, reference: measurements.MeasurementSet,
               library: str, curve: str) -> str:
    """The anchor key of `key`: the first candidate both the transcribed file and the reference file
    price in `library`."""
    for op in anchor_candidates(key):
        a = f"{curve}/{op}"
        if transcribed.has(library, a) and reference.has(library, a):
            return a
    raise CompletionError(f"{transcribed.name}: no anchor for {key} (needs one of "
                          f"{', '.join(f'{curve}/{o}' for o in anchor_candidates(key))} in {library} on both "
                          f"this machine and {reference.name})")


def _library_curve(transcribed: measurements.MeasurementSet, reference: measurements.MeasurementSet) -> tuple:
    src = transcribed.provenance.get("source", {})
    library, curve = src.get("library"), src.get("curve")
    if transcribed.kind != "public" or library not in transcribed.results:
        raise CompletionError(f"{transcribed.name}: not a zkalc transcription (costbook import zkalc makes one)")
    if library not in reference.results:
        raise CompletionError(f"{reference.name} has no {library!r} prices to carry ratios from (it has: "
                              f"{', '.join(reference.backends)})")
    return library, curve


def carry_scores(evidence, reference: measurements.MeasurementSet) -> list:
    """(machine, key, anchor, score) for every pair of prices an evidence machine states in its library,
    one of them an anchor operation, that the reference machine prices in the same library: the score,
    |ln((stated(key) / reference(key)) / (stated(anchor) / reference(anchor)))|, is how far the key's
    price lies from the one its anchor's ratio would give it (each pair once)."""
    out = []
    for t in evidence:
        library, curve = _library_curve(t, reference)
        stated = [k for k in t.keys(library) if reference.has(library, k) and not t.entry(library, k).get("completed")]
        anchors = [f"{curve}/{op}" for op in G1_ANCHORS if f"{curve}/{op}" in stated]
        ratio = {k: t.seconds(library, k) / reference.seconds(library, k) for k in stated}
        seen = set()
        for a in anchors:
            for key in stated:
                if key == a or frozenset((key, a)) in seen:
                    continue
                seen.add(frozenset((key, a)))
                out.append((t.name, key, a, abs(math.log(ratio[key] / ratio[a]))))
    return out


def carry_margin(evidence, reference: measurements.MeasurementSet, level: float = uncertainty.NOMINAL) -> tuple:
    """(margin, scores): the conformal quantile of ``carry_scores`` at `level`, or CompletionError when
    the evidence is too little for the level."""
    scores = carry_scores(evidence, reference)
    q = uncertainty.conformal_quantile([s for *_, s in scores], level)
    if not math.isfinite(q):
        raise CompletionError(f"{len(scores)} stated prices on {len(list(evidence))} other machine(s) are too few "
                              f"for a {level:.0%} margin (need at least {math.ceil(level / (1 - level))}); "
                              f"give more zkalc files of the same library and curve as evidence")
    return q, scores


def complete(transcribed: measurements.MeasurementSet, reference: measurements.MeasurementSet,
             evidence=(), command: str | None = None) -> measurements.MeasurementSet:
    """`transcribed` (a zkalc import) with every price the reference file has and it lacks completed
    from the reference machine's ratios (module docstring), each marked ``completed``; its margin from
    `evidence` (other machines' transcriptions, never this one)."""
    library, curve = _library_curve(transcribed, reference)
    others = [e for e in evidence if e.provenance.get("source") != transcribed.provenance.get("source")]
    q, scores = carry_margin(others, reference)
    widen = math.exp(q)
    results = {library: dict(transcribed.results[library])}
    for backend, entries in reference.results.items():
        for key in entries:
            if transcribed.has(backend, key):
                continue
            a = anchor_for(key, transcribed, reference, library, curve)
            ref_a = reference.seconds(library, a)
            ratio = transcribed.seconds(library, a) / ref_a
            a_low, a_high = transcribed.bounds(library, a)
            low, high = reference.bounds(backend, key)
            results.setdefault(backend, {})[key] = {
                "median": reference.seconds(backend, key) * ratio, "unit": "s",
                "low": low * a_low / ref_a / widen, "high": high * a_high / ref_a * widen,
                "basis": f"completed: {reference.name} {backend} price x this machine's {library} {a} / "
                         f"{reference.name}'s ({ratio:.4g}), interval widened by e^{q:.3f} (carrying a ratio "
                         f"across machines)",
                "completed": {"anchor": a, "library": library, "ratio": ratio, "margin": q, "from": reference.name}}
    prov = dict(transcribed.provenance)
    prov["completion"] = {
        "method": "price(key) = reference(key) x zkalc(anchor) / reference_library(anchor), the anchor by "
                  "costbook.views.public.anchor_candidates; bounds: the reference bounds x the anchor's bounds ratio, "
                  "widened by e^margin",
        "reference": reference.name, "library": library,
        "margin": q, "level": uncertainty.NOMINAL,
        "margin_from": sorted({m for m, *_ in scores}), "margin_scores": len(scores),
        "completed": sum(1 for es in results.values() for e in es.values() if e.get("completed")),
        "stated": len(transcribed.results[library])}
    if command:
        prov["command"] = command
    name = f"{transcribed.provenance['machine']}: zkalc {library}, the rest completed"
    data = {"schema": measurements.SCHEMA, "name": name, "kind": "public", "provenance": prov,
            "results": {b: dict(sorted(es.items(), key=lambda kv: sort_key(kv[0]))) for b, es in results.items()}}
    return measurements.validate(data, name)


def is_stated(mset: measurements.MeasurementSet, backend: str, key: str) -> bool:
    """Whether `mset` prices `key` in `backend` with a price measured or stated there, not completed."""
    return mset.has(backend, key) and not mset.entry(backend, key).get("completed")


# ---------------------------------------------------------------------------
# The committed public machines: measurements/public/<id>.json from measurements/public/zkalc/

def sources_path():
    return measurements.project_root() / "measurements" / "public" / "zkalc" / "sources.json"


def sources() -> list:
    """The zkalc files the book transcribes, one per public machine (measurements/public/zkalc/sources.json)."""
    text = measurements.read_text(sources_path(), what="list of zkalc sources")
    data = measurements.parse_json(text, str(sources_path()))
    return data["machines"]


def import_command(machine: dict, others: list) -> list:
    """The `costbook import zkalc` arguments that make one public machine's file (paths from the root)."""
    folder = "measurements/public/zkalc/"
    args = ["import", "zkalc", folder + machine["file"], "--library", machine["library"],
            "--curve", machine["curve"], "--machine", machine["machine"],
            "--repository", machine["repository"], "--commit", machine["commit"], "--path", machine["path"],
            "--complete"]
    for o in others:
        args += ["--evidence", folder + o["file"]]
    return args + ["--out", f"measurements/public/{machine['id']}.json"]


def build() -> list:
    """Write every public machine's file by running `costbook import zkalc` (``import_command``), each
    with the other machines as the evidence of its margin; returns the paths written."""
    import subprocess
    root = measurements.project_root()
    machines = sources()
    written = []
    for m in machines:
        args = import_command(m, [o for o in machines if o is not m])
        # an argument list, no shell: the sources file's text never reaches one
        done = subprocess.run([sys.executable, "-m", "costbook.cli.commands", *args], cwd=root)
        if done.returncode != 0:
            raise CompletionError(f"costbook {shlex.join(args)} failed (exit {done.returncode})")
        written.append(root / "measurements" / "public" / f"{m['id']}.json")
    return written


if __name__ == "__main__":
    if sys.argv[1:]:        # it takes no argument: --help must not rewrite every public machine
        print("usage: python -m costbook.views.public (no arguments): writes measurements/public/*.json again "
              "from measurements/public/zkalc/sources.json", file=sys.stderr)
        raise SystemExit(0 if sys.argv[1:] in (["-h"], ["--help"]) else 2)
    for path in build():
        print(path)
