"""costbook.system.atomic: a file is replaced whole, and its temporary cannot be planted.

A predictable temporary name (`.<name>.<pid>.tmp`) let anyone who can write the folder plant a
symlink there: `ln -s target .out.json.$$.tmp; exec costbook export zkalc --out out.json` overwrote
`target` and left `out.json` a symlink.  The temporary is now mkstemp's (O_EXCL, a random name)."""
from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

from costbook.system import atomic

COSTBOOK = Path(sys.executable).with_name("costbook")


def test_a_planted_symlink_at_the_old_temporary_name_is_not_followed(tmp_path):
    target = tmp_path / "target"
    target.write_text("precious")
    out = tmp_path / "out.json"
    planted = tmp_path / f".out.json.{os.getpid()}.tmp"
    planted.symlink_to(target)
    atomic.write_text(out, "new\n")
    assert target.read_text() == "precious" and planted.is_symlink()
    assert out.read_text() == "new\n" and not out.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["target", "out.json", planted.name])


def test_a_symlink_in_the_files_place_is_replaced_not_followed(tmp_path):
    target = tmp_path / "target"
    target.write_text("precious")
    out = tmp_path / "out.json"
    out.symlink_to(target)
    atomic.write_text(out, "new\n")
    assert target.read_text() == "precious" and not out.is_symlink() and out.read_text() == "new\n"


def test_the_file_has_ordinary_permissions(tmp_path):
    out = atomic.write_text(tmp_path / "page.html", "<p>x</p>\n")
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~umask


def test_export_zkalc_with_its_old_temporary_name_planted(tmp_path):
    """The attack as it was reported, through the command (exec keeps the shell's pid)."""
    (tmp_path / "target").write_text("precious")
    script = 'ln -s target ".out.json.$$.tmp"; exec "$0" export zkalc --out out.json'
    done = subprocess.run(["bash", "-c", script, str(COSTBOOK)], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "target").read_text() == "precious"
    out = tmp_path / "out.json"
    assert not out.is_symlink() and out.read_text().lstrip().startswith("{")


def test_a_dead_writers_temporary_is_removed_and_a_live_ones_kept(tmp_path):
    out = tmp_path / "out.json"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True).stdout.strip()
    stale = tmp_path / f".out.json.{dead}.abcd1234.tmp"
    live = tmp_path / f".out.json.{os.getpid()}.abcd1234.tmp"
    stale.write_text("")
    live.write_text("")
    atomic.write_text(out, "x")
    assert not stale.exists() and live.exists()
    assert atomic.temporaries_of(out) == [live]


def test_a_signal_while_the_temporary_is_made_leaves_no_temporary(tmp_path, monkeypatch):
    """SIGTERM between mkstemp making the file and the writer holding its name (the handler raises,
    as costbook's does): the temporary is found by its writer's prefix, and goes."""
    import signal
    import tempfile

    class Terminated(BaseException):
        pass

    def handler(signum, frame):
        raise Terminated
    previous = signal.signal(signal.SIGTERM, handler)
    real_mkstemp = tempfile.mkstemp

    def mkstemp(*a, **k):
        made = real_mkstemp(*a, **k)
        os.kill(os.getpid(), signal.SIGTERM)     # the handler raises here, before mkstemp returns
        for _ in range(1000):                    # bytecodes at which a handler could run
            pass
        return made
    monkeypatch.setattr(atomic.tempfile, "mkstemp", mkstemp)
    out = tmp_path / "out.json"
    out.write_text("old\n")
    try:
        try:
            atomic.write_text(out, "new\n")
        except Terminated:
            pass
        else:
            raise AssertionError("the signal was lost")
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert out.read_text() == "old\n" and [p.name for p in tmp_path.iterdir()] == ["out.json"]
