"""Public machines: zkalc's transcribed prices [@zkalc], completed from the reference machine's ratios.

A zkalc file prices a curve's operations in one library (the G1 and G2 multiplications, the pairing,
MSMs, products of pairings); the book's schemes need more (modular exponentiations, ristretto255,
hashes, BN254 in mcl).  ``complete`` fills every price the reference machine has and the zkalc file
lacks: the reference price scaled by this machine's ratio to the reference machine on an *anchor*,

    price(key) = reference(key) x zkalc(anchor) / (reference_via(anchor') x bridge(anchor)),

the anchor the first of ``anchor_candidates(key)`` the file has (G2 work on the G2 multiplication,
target-group and pairing work on the pairing, everything else on the G1 multiplication).  Where the
reference machine prices the file's library on its curve, *via* is that library (anchor' = anchor,
bridge = 1).  Otherwise (blstrs, gnark_crypto, BN254) it is the library and curve of the public
machines (``bridge_library``), and the bridge is the geometric mean, over the machines zkalc times
both on, of the file's library's time of that operation over via's (``bridge_ratios``).

Each completed entry is marked ``completed`` and says so in ``basis``.  Its interval is the reference
price's bounds times the anchor's bounds ratio, widened by e^margin: the conformal quantile at the
book's level (``uncertainty.NOMINAL``) of how far *other* machines' stated prices lie from what
completion would give them (``carry_scores``; across libraries, ``bridge_scores``, which predict
via's stated prices on each bridging machine from the file's library there and a bridge from the
other machines).  The machine being completed never judges its own margin.  A completed price of a
library no zkalc file times (GMP, libsodium, CPython's hashing) also carries a ratio across
libraries, an error the evidence cannot see.
"""
from __future__ import annotations

import math
import shlex
import sys
from pathlib import Path

from ..prices import measurements
from ..calibration import uncertainty
from ..prices.keys import family_of, sort_key
from . import zkalc

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
               library: str, curve: str, via: tuple | None = None, bridge: dict | None = None) -> str:
    """The anchor key of `key`: the first candidate the transcribed file prices in `library` and the
    reference file prices in via's library and curve (`via`, default the file's own), with a bridge
    ratio where `bridge` is given."""
    vl, vc = via or (library, curve)
    for op in anchor_candidates(key):
        if transcribed.has(library, f"{curve}/{op}") and reference.has(vl, f"{vc}/{op}") and \
                (bridge is None or op in bridge):
            return f"{curve}/{op}"
    raise CompletionError(f"{transcribed.name}: no anchor for {key} (needs one of "
                          f"{', '.join(f'{curve}/{o}' for o in anchor_candidates(key))} in {library} on this "
                          f"machine, {vl} {vc} on {reference.name}"
                          + (" and a bridge ratio between them" if bridge is not None else "") + ")")


def _library_curve(transcribed: measurements.MeasurementSet) -> tuple:
    src = transcribed.provenance.get("source", {})
    library, curve = src.get("library"), src.get("curve")
    if transcribed.kind != "public" or library not in transcribed.results:
        raise CompletionError(f"{transcribed.name}: not a zkalc transcription (costbook import zkalc makes one)")
    return library, curve


def prices_own(reference: measurements.MeasurementSet, library: str, curve: str) -> bool:
    """Whether the reference machine prices `library` on `curve` (an anchor operation of it)."""
    return any(reference.has(library, f"{curve}/{op}") for op in G1_ANCHORS)


def bridge_library(reference: measurements.MeasurementSet) -> tuple:
    """(library, curve) of the public machines' zkalc files that the reference machine also prices:
    what another library's or curve's ratios are carried through."""
    held = sorted({(m["library"], m["curve"]) for m in sources() if prices_own(reference, m["library"], m["curve"])})
    if not held:
        raise CompletionError(f"{reference.name} prices none of the public machines' libraries on their curves")
    return held[0]


def carry_scores(evidence, reference: measurements.MeasurementSet) -> list:
    """(machine, key, anchor, score) for every pair of prices an evidence machine states in its library,
    one of them an anchor operation, that the reference machine prices in the same library: the score,
    |ln((stated(key) / reference(key)) / (stated(anchor) / reference(anchor)))|, is how far the key's
    price lies from the one its anchor's ratio would give it (each pair once)."""
    out = []
    for t in evidence:
        library, curve = _library_curve(t)
        if library not in reference.results:
            raise CompletionError(f"{reference.name} has no {library!r} prices to carry ratios from (it has: "
                                  f"{', '.join(reference.backends)})")
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


def _quantile(scores: list, machines: int, level: float, what: str) -> float:
    q = uncertainty.conformal_quantile([s for *_, s in scores], level)
    if not math.isfinite(q):
        raise CompletionError(f"{len(scores)} stated prices on {machines} other machine(s) are too few "
                              f"for a {level:.0%} margin (need at least {math.ceil(level / (1 - level))}); "
                              f"give more zkalc files of {what}")
    return q


def carry_margin(evidence, reference: measurements.MeasurementSet, level: float = uncertainty.NOMINAL) -> tuple:
    """(margin, scores): the conformal quantile of ``carry_scores`` at `level`, or CompletionError when
    the evidence is too little for the level."""
    scores = carry_scores(evidence, reference)
    return _quantile(scores, len(list(evidence)), level, "the same library and curve"), scores


def bridge_ratios(evidence: dict, partners: dict, library: str, curve: str, via: tuple) -> dict:
    """{machine: {op: library's stated time of curve/op / via's stated time of its curve/op}} over the
    machines both `evidence` (zkalc machine name -> a transcription of `library` on `curve`) and
    `partners` (the same, of via's library and curve) hold, for the anchor operations both state."""
    vl, vc = via
    out = {}
    for x in sorted(set(evidence) & set(partners)):
        e, p = evidence[x], partners[x]
        ops = {op: e.seconds(library, f"{curve}/{op}") / p.seconds(vl, f"{vc}/{op}") for op in G1_ANCHORS
               if is_stated(e, library, f"{curve}/{op}") and is_stated(p, vl, f"{vc}/{op}")}
        if ops:
            out[x] = ops
    return out


def bridge_of(ratios: dict, leave_out: str | None = None) -> dict:
    """{op: the geometric mean of its ratio over the machines of `ratios`}, without `leave_out`."""
    logs: dict = {}
    for x, ops in ratios.items():
        if x != leave_out:
            for op, r in ops.items():
                logs.setdefault(op, []).append(math.log(r))
    return {op: math.exp(sum(v) / len(v)) for op, v in logs.items()}


def bridge_scores(evidence: dict, partners: dict, reference: measurements.MeasurementSet, library: str,
                  curve: str, via: tuple) -> list:
    """(machine, key, anchor, score): on each machine of ``bridge_ratios``, every price via's file
    states that the reference machine has, predicted as ``complete`` would price a reference key
    there (from that machine's `library` anchor, the bridge from the *other* machines);
    score = |ln(stated / predicted)|."""
    vl, vc = via
    ratios = bridge_ratios(evidence, partners, library, curve, via)
    out = []
    for x in ratios:
        bridge, e, p = bridge_of(ratios, leave_out=x), evidence[x], partners[x]
        for key in p.keys(vl):
            if not reference.has(vl, key) or not is_stated(p, vl, key):
                continue
            try:
                a = anchor_for(key, e, reference, library, curve, via, bridge)
            except CompletionError:
                continue
            op = a.split("/", 1)[1]
            predicted = reference.seconds(vl, key) * e.seconds(library, a) / (reference.seconds(vl, f"{vc}/{op}") * bridge[op])
            out.append((x, key, a, abs(math.log(p.seconds(vl, key) / predicted))))
    return out


def complete(transcribed: measurements.MeasurementSet, reference: measurements.MeasurementSet,
             evidence=(), command: str | None = None, partners: dict | None = None) -> measurements.MeasurementSet:
    """`transcribed` (a zkalc import) with every price the reference file has and it lacks completed
    from the reference machine's ratios (module docstring), each marked ``completed``; its margin from
    `evidence` (other machines' transcriptions of its library and curve, never this one).  Where the
    reference machine does not price its library on its curve, `partners` ({zkalc machine name: a
    transcription of ``bridge_library``}) bridge the two, paired with `evidence` by machine name
    (``provenance.machine``)."""
    library, curve = _library_curve(transcribed)
    others = [e for e in evidence if e.provenance.get("source") != transcribed.provenance.get("source")]
    if prices_own(reference, library, curve):
        via, bridge, machines = (library, curve), None, []
        q, scores = carry_margin(others, reference)
    else:
        via = bridge_library(reference)
        by_machine = {str(e.provenance.get("machine")): e for e in others}
        ratios = bridge_ratios(by_machine, partners or {}, library, curve, via)
        if len(ratios) < 2:
            raise CompletionError(
                f"{reference.name} has no {library} {curve} prices, and carrying them to its {via[0]} {via[1]} needs "
                f"zkalc files of both on at least two other machines (have {len(ratios)}"
                + (f": {', '.join(ratios)}" if ratios else "") + ")")
        bridge, machines = bridge_of(ratios), sorted(ratios)
        scores = bridge_scores(by_machine, partners, reference, library, curve, via)
        q = _quantile(scores, len(machines), uncertainty.NOMINAL, f"{library} {curve} and {via[0]} {via[1]} on the "
                                                                  f"same machines")
    widen = math.exp(q)
    results = {library: dict(transcribed.results[library])}
    for backend, entries in reference.results.items():
        for key in entries:
            if transcribed.has(backend, key):
                continue
            a = anchor_for(key, transcribed, reference, library, curve, via, bridge)
            op = a.split("/", 1)[1]
            ref_a = reference.seconds(via[0], f"{via[1]}/{op}") * (bridge[op] if bridge else 1.0)
            ratio = transcribed.seconds(library, a) / ref_a
            a_low, a_high = transcribed.bounds(library, a)
            low, high = reference.bounds(backend, key)
            across = (f"{reference.name}'s {via[0]} {via[1]}/{op} x {bridge[op]:.4g} (zkalc's {library} {curve} "
                      f"over {via[0]} {via[1]} for {op} on {', '.join(machines)})" if bridge else f"{reference.name}'s")
            results.setdefault(backend, {})[key] = {
                "median": reference.seconds(backend, key) * ratio, "unit": "s",
                "low": low * a_low / ref_a / widen, "high": high * a_high / ref_a * widen,
                "basis": f"completed: {reference.name} {backend} price x this machine's {library} {a} / "
                         f"{across} ({ratio:.4g}), interval widened by e^{q:.3f} (carrying a ratio "
                         f"across {'libraries and ' if bridge else ''}machines)",
                "completed": {"anchor": a, "library": library, "ratio": ratio, "margin": q, "from": reference.name,
                              **({"via": f"{via[0]} {via[1]}/{op}", "bridge": bridge[op]} if bridge else {})}}
    prov = dict(transcribed.provenance)
    prov["completion"] = {
        "method": ("price(key) = reference(key) x zkalc(anchor) / (reference_via(anchor) x bridge(anchor))" if bridge
                   else "price(key) = reference(key) x zkalc(anchor) / reference_library(anchor)")
                  + ", the anchor by costbook.views.public.anchor_candidates; bounds: the reference bounds x the "
                    "anchor's bounds ratio, widened by e^margin",
        "reference": reference.name, "library": library,
        "margin": q, "level": uncertainty.NOMINAL,
        "margin_from": sorted({m for m, *_ in scores}), "margin_scores": len(scores),
        "completed": sum(1 for es in results.values() for e in es.values() if e.get("completed")),
        "stated": len(transcribed.results[library])}
    if bridge:
        prov["completion"]["via"] = {"library": via[0], "curve": via[1], "bridge": bridge, "machines": machines}
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


def _listed() -> dict:
    """measurements/public/zkalc/sources.json: the public machines' zkalc files and the evidence's."""
    text = measurements.read_text(sources_path(), what="list of zkalc sources")
    return measurements.parse_json(text, str(sources_path()))


def sources() -> list:
    """The zkalc files the book transcribes, one per public machine (measurements/public/zkalc/sources.json)."""
    return _listed()["machines"]


def held(library: str, curve: str) -> dict:
    """{zkalc machine name: path} of the zkalc files of `library` on `curve` the book holds
    (measurements/public/zkalc/: the public machines' and the evidence's)."""
    data, folder = _listed(), sources_path().parent
    return {Path(m["file"]).stem: folder / m["file"] for m in data["machines"] + data.get("evidence", [])
            if m["library"] == library and m["curve"] == curve}


def held_transcriptions(library: str, curve: str) -> dict:
    """{zkalc machine name: transcription} of ``held(library, curve)``, each named by its zkalc machine
    name (how ``complete`` pairs a file of one library with the bridge's)."""
    return {name: zkalc.to_measurements(f, library, name, curve) for name, f in held(library, curve).items()}


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
