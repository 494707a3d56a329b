"""How far two measurement files of one machine lie apart, key by key.

    python -m costbook.timing.measure_agreement A.json B.json

For every (backend, key) both files measured: |median_A / median_B - 1|.  Prints the number of
keys, the median, the 90th percentile (two runs "agree within 5% at p90" when 90% of the keys
differ by at most 5%) and the widest keys; and, per file, the width of the intervals it gives
((q3 - q1) / median: median and 90th percentile over the same keys).  A file that cannot be read
is one line and exit 2.
"""
from __future__ import annotations

import argparse
import math
import statistics
import sys

from ..prices import measurements


def percentile(values, q: float) -> float:
    """The smallest value with at least a share `q` of `values` at or below it (nearest rank)."""
    xs = sorted(values)
    if not xs:
        raise ValueError("no values")
    return xs[min(len(xs) - 1, max(0, math.ceil(q * len(xs)) - 1))]


def differences(a: measurements.MeasurementSet, b: measurements.MeasurementSet) -> dict:
    """{(backend, key): |a / b - 1|} of the medians, over the keys both sets measured."""
    return {(bk, k): abs(a.seconds(bk, k) / b.seconds(bk, k) - 1)
            for bk in a.backends if bk in b.backends for k in a.keys(bk) if b.has(bk, k)}


def widths(m: measurements.MeasurementSet, pairs) -> list:
    """(high - low) / median of each (backend, key) of `pairs` in `m` (its quartiles where measured)."""
    out = []
    for bk, k in pairs:
        low, high = m.bounds(bk, k)
        out.append((high - low) / m.seconds(bk, k))
    return out


def summary(a: measurements.MeasurementSet, b: measurements.MeasurementSet, worst: int = 5) -> str:
    d = differences(a, b)
    if not d:
        return f"{a.name} and {b.name}: no key in common"
    vals = list(d.values())
    wide = sorted(d.items(), key=lambda kv: -kv[1])[:worst]
    lines = [f"{len(d)} keys in common: medians differ by {statistics.median(vals):.1%} (median), "
             f"{percentile(vals, 0.9):.1%} (90th percentile), {max(vals):.1%} (most)",
             "widest: " + ", ".join(f"{bk} {k} {x:.1%}" for (bk, k), x in wide)]
    for m in (a, b):
        w = widths(m, d)
        lines.append(f"{m.path or m.name}: interval width (q3 - q1) / median {statistics.median(w):.1%} (median), "
                     f"{percentile(w, 0.9):.1%} (90th percentile)")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m costbook.timing.measure_agreement",
                                description="How far two measurement files of one machine lie apart, key by key.")
    p.add_argument("a", help="a measurement file")
    p.add_argument("b", help="another measurement file of the same machine")
    args = p.parse_args(argv)
    try:
        a, b = measurements.load(args.a), measurements.load(args.b)
    except (OSError, measurements.MeasurementFileError) as e:
        print(f"measure_agreement: {e}", file=sys.stderr)
        return 2
    print(summary(a, b))
    return 0


if __name__ == "__main__":
    sys.exit(main())
