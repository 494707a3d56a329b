"""Shared test setup of tests/ (the environment every test runs in: ../conftest.py)."""

# Notebooks under tests/fixtures are inputs of the renderer's tests, not chapters.
# The toy schemes' chapters are rendered and re-run by tests/test_toy_scheme.py, not by nbval.
collect_ignore_glob = ["fixtures/*", "toy_schemes/*"]


# ---------------------------------------------------------------------------------------------
# The toy schemes (tests/toy_schemes): discovered like any scheme once their folder is on
# costbook.schemes.__path__, inside a temporary book that holds what each toy folder brings

import shutil  # noqa: E402
import sys  # noqa: E402
from contextlib import contextmanager  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

TOY_SCHEMES = Path(__file__).resolve().parent / "toy_schemes"
REPO = Path(__file__).resolve().parents[1]


def install_toy_book(root: Path, scheme_dirs, with_the_books_schemes: bool = True) -> Path:
    """A temporary book at `root`: the committed measurement files, plus for each toy scheme folder
    what it brings (its published files, its chapter, its bibliography), copied where a book keeps
    them; _quarto.yml lists the toy chapters.  With `with_the_books_schemes`, it is this book plus the
    toys: the book's scheme chapters (linked) and bibliography are in it too, so that the registry
    counts the book's schemes as in it (each scheme's chapter exists and is listed).  Returns root."""
    (root / "measurements" / "published").mkdir(parents=True)
    (root / "measurements" / "reference").symlink_to(REPO / "measurements" / "reference")
    # the book's other committed files: the ledger's intervals read every scheme's rows
    for folder in ("seed-libraries",):
        (root / "measurements" / folder).symlink_to(REPO / "measurements" / folder)
    (root / "chapters").mkdir()
    chapters, bib = [], []
    if with_the_books_schemes:
        from costbook import registry
        for name in registry.in_book_order(REPO):
            chapter = str(registry.manifest(name).CHAPTER)
            (root / chapter).symlink_to(REPO / chapter)
            chapters.append(chapter)
        bib.append((REPO / "references.bib").read_text())
    for folder in scheme_dirs:
        manifest = (folder / "manifest.py").read_text()
        chapter = next(line.split('"')[1] for line in manifest.splitlines() if line.startswith("CHAPTER"))
        shutil.copy(folder / "chapter.ipynb", root / chapter)
        chapters.append(chapter)
        bib.append((folder / "references.bib").read_text())
    (root / "references.bib").write_text("\n".join(bib))
    (root / "index.qmd").write_text("# Preface {.unnumbered}\n\nA book of toy schemes.\n")
    (root / "_quarto.yml").write_text(
        "project:\n  type: book\nbook:\n  title: \"toy\"\n  chapters:\n    - index.qmd\n"
        + "".join(f"    - {c}\n" for c in chapters) + "bibliography: references.bib\n")
    return root


@contextmanager
def toy_schemes_on_path():
    """costbook.schemes discovers the toy schemes inside the block (and forgets them after)."""
    import costbook.schemes as schemes
    path = str(TOY_SCHEMES)
    schemes.__path__.append(path)
    try:
        yield
    finally:
        schemes.__path__.remove(path)
        for name in [m for m, mod in list(sys.modules.items()) if m.split(".")[:2] == ["costbook", "schemes"]
                     and str(getattr(mod, "__file__", "") or "").startswith(str(TOY_SCHEMES))]:
            del sys.modules[name]


@pytest.fixture
def toy_scheme(tmp_path, monkeypatch):
    """The toy schemes discovered, in a temporary book (COSTBOOK_ROOT) that holds their files."""
    root = install_toy_book(tmp_path / "book", [d for d in sorted(TOY_SCHEMES.iterdir()) if (d / "model.py").is_file()])
    monkeypatch.setenv("COSTBOOK_ROOT", str(root))
    with toy_schemes_on_path():
        yield root


# ---------------------------------------------------------------------------------------------
# make test's first phase runs on two pytest-xdist workers, one file at a time each (--dist
# loadfile --no-loadscope-reorder: files are handed out in collection order).  The few files that
# take minutes go first, the longest first, so that neither worker is left with one of them at the
# end while the other is idle.  Within a file the order is unchanged (nbval runs a chapter's cells in
# order).  The seconds are only an order: the files' nbval or test times in make test's first phase on
# the 2-core AMD EPYC (a quiet run of 2026-11-27), where the chapters' validations time with
# validation.CHECK_PROFILE.

SLOW_FIRST = {
    "tests/test_prose_under_other_prices.py": 60,     # chapters 2-6 executed again, re-priced
    "tests/test_live_pricing.py": 45,
    "tests/test_tamper_properties.py": 29,
    "chapters/05-traceable-mixnets.ipynb": 28,
    "tests/test_book_cache.py": 26,
    "tests/test_interrupt.py": 19,
    "tests/test_book_pdf.py": 19,          # the offline book and its PDF, made once
    "chapters/02-punch-cards.ipynb": 17,
    "chapters/04-verifiable-encryption.ipynb": 16,
    "tests/test_live_browser.py": 14,
    "tests/test_mixnet_protocol.py": 14,
    "chapters/03-vector-commitments.ipynb": 12,
    "tests/test_cli_bad_inputs.py": 12,
    "tests/test_cs03.py": 12,
    "tests/test_mixnet_light_ops.py": 11,
    "chapters/06-comparison.ipynb": 11,
}


def pytest_collection_modifyitems(config, items):
    def weight(item):
        path = Path(str(item.path)).resolve()
        rel = path.relative_to(REPO).as_posix() if path.is_relative_to(REPO) else ""
        return -SLOW_FIRST.get(rel, 0)
    items.sort(key=weight)        # stable: files of equal weight keep their collection order


def dbsm_dpk_statement(G, x, X, m: int, rng):
    """A fresh DB-SM DPK statement and its distributed proof by m provers (the tamper tests' transcript):
    PK{(v, r, b): gamma = g1^v h1^r, e(s~, X f2^v) = e(g1, f2)^b}; returns (gamma, sig_tilde, proof)."""
    from costbook.schemes.mixnet import bbsig, dbsm, sigma
    v, r, b = (G.random_scalar(rng) for _ in range(3))
    gamma = G.op(G.exp1(G.g1, v), G.exp1(G.h1, r))
    sig_tilde = G.exp1(bbsig.sign(G, x, v), b)
    shares = [dbsm.additive_shares(G, w, m, rng) for w in (v, r, b)]
    proof = sigma.prove_distributed(G, dbsm.BBRelation(X, gamma, sig_tilde),
                                    [tuple(s[k] for s in shares) for k in range(m)], rng)
    return gamma, sig_tilde, proof


# ---------------------------------------------------------------------------------------------
# Bounded work on rejection, as a ratio that holds on any machine: a rejection is compared with an
# honest verification of the same transcript, both in CPU time of this process (a busy machine
# delays a call but does not add to its CPU time), never with a number of seconds

import math  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402

#: a rejection may cost at most this many honest verifications.  Unbounded work costs far more: an
#: exponent of 2^100000 or 2^200000 where 256 or a few thousand bits are honest, a list 2^70 long.
REJECTION_WORK_RATIO = 4.0
#: a verification that costs less than this is timed in batches that cost about this much, so that one
#: call's timer, garbage collection or cache misses do not decide a ratio (a batch size, not a limit)
BATCH_CPU_S = 0.002


def cpu_seconds(call):
    """(CPU seconds of this process that call() took, its result)."""
    start = time.process_time()
    result = call()
    return time.process_time() - start, result


def batch_size(honest_s: float) -> int:
    return max(1, math.ceil(BATCH_CPU_S / max(honest_s, 1e-9)))


def honest_cpu_seconds(verify_honest, runs: int = 3) -> float:
    """CPU seconds of one honest verification: the median of `runs` timed batches (``batch_size``),
    after one untimed call (caches filled)."""
    assert verify_honest() is True, "the honest transcript does not verify"
    single = statistics.median(cpu_seconds(verify_honest)[0] for _ in range(runs))
    k = batch_size(single)
    if k == 1:
        return single
    return statistics.median(cpu_seconds(lambda: [verify_honest() for _ in range(k)])[0] / k
                             for _ in range(runs))


def rejection_work(reject, honest_s: float, tries: int = 3):
    """(verdict, ratio): reject()'s verdict and its CPU time per call over honest_s, timed in batches
    of ``batch_size(honest_s)`` calls.  A batch over the ratio is tried again, up to `tries` times,
    keeping the least; a batch stops as soon as it is over (unbounded work is not waited for);
    every call must give the same verdict."""
    k, best, verdicts = batch_size(honest_s), math.inf, set()
    for _ in range(tries):
        spent, calls = 0.0, 0
        while calls < k and spent <= REJECTION_WORK_RATIO * honest_s * k:
            seconds, v = cpu_seconds(reject)
            spent, calls = spent + seconds, calls + 1
            verdicts.add(repr(v))
        best = min(best, spent / calls)
        if best <= REJECTION_WORK_RATIO * honest_s:
            break
    if len(verdicts) != 1:
        raise AssertionError(f"the verdict changed between calls: {sorted(verdicts)}")
    return v, best / honest_s
