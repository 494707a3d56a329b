"""What make setup installs: a process that imports nbformat (every test worker, chapter runner and
make chapter) does not build rfc3987-syntax's grammar (1.3 s of CPU each; requirements-excluded.txt)."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_nbformat_does_not_bring_the_excluded_packages():
    excluded = [line.strip() for line in (ROOT / "requirements-excluded.txt").read_text().splitlines()
                if line.strip() and not line.startswith("#")]
    assert excluded and not any(line.split("==")[0].lower() in excluded
                                for line in (ROOT / "requirements.txt").read_text().splitlines())
    modules = [name.replace("-", "_") for name in excluded]
    r = subprocess.run([sys.executable, "-c", "import sys, nbformat, jsonschema\n"
                        f"print([m for m in {modules!r} if m in sys.modules])"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "[]", r.stdout + r.stderr
