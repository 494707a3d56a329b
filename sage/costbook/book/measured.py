"""Whether `make book` may reuse this machine's measurement file instead of measuring again.

    python -m costbook.book measured FILE --after STAMP
        exit 0 (and say so) when FILE is a valid measurement file measured with the profile named in
        $COSTBOOK_PROFILE (make's PROFILE, passed unexpanded through the environment) and is newer
        than STAMP (the venv's install stamp: new libraries, new prices); exit 1 otherwise, with
        the reason, so that the Makefile measures.

`make measure` always measures; `make book` measures only when this says no.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ENV_PROFILE = "COSTBOOK_PROFILE"


def reusable(path: Path, after: Path | None, profile: str) -> tuple[bool, str]:
    from ..prices import measurements as ms
    if not path.is_file():
        return False, f"no {path} yet"
    if after is not None and after.exists() and path.stat().st_mtime <= after.stat().st_mtime:
        return False, f"{path} is older than {after}"
    try:
        data = ms.load(path)
    except ms.MeasurementFileError as e:
        return False, f"{path} cannot be used ({' '.join(str(e).split())[:200]})"
    have = (data.provenance.get("profile") or {}).get("name")
    if have != profile:
        return False, f"{path} was measured with profile {have!r}, not {profile!r}"
    return True, f"reusing {path} (profile {profile}, measured {data.provenance.get('date', '?')}; " \
                 f"'make measure' measures again)"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file", type=Path)
    ap.add_argument("--after", type=Path, help="the file must be newer than this one")
    args = ap.parse_args(argv)
    ok, why = reusable(args.file, args.after, os.environ.get(ENV_PROFILE, "quick"))
    print(f"measure: {why}", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
