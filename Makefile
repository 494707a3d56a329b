# costbook: two commands do everything (see README.md).
#
#   make book   set up .venv, measure this machine (quick profile; once: the file is reused until
#               make measure; the chapters' kernels start meanwhile on the other core), execute the
#               chapters against those measurements into build/chapters
#               (two at a time on two cores; unchanged chapters reused from build/cache, FRESH=1
#               runs them all, JOBS=N sets how many at once), render the book into build/book
#   make test   set up .venv, run the library tests and strict nbval on the committed chapters (two
#               workers), then the validation tests alone
#
# Other targets: setup, setup-publish (what a Quarto render alone needs), measure, chapters, render, bench-self (time make book and make test here), calibrate (the
# committed validation runs the prediction intervals are made from), reference (re-execute the committed
# chapters against the committed reference file), measure-reference (full profile),
# measure-dalek (re-time curve25519-dalek 2.0.0, the punch-card seed's library; needs cargo), clean,
#   make lab                                  JupyterLab on the chapters (sagemath kernel)
#   make chapter CHAPTER=04 SET='PARAMS="aggressive"'
#                                             re-run one chapter with a parameter overridden
#                                             (into build/chapters; the chapter file is not
#                                             edited) and re-render the book into build/book
#
# Ctrl-C or SIGTERM during make book, make chapter or make test ends every process the command
# started (chapter processes, Jupyter kernels, test workers), prints one line "interrupted: ..."
# (make adds its own "make: *** [...] Interrupt"), leaves no half-written file, and the command
# ends by the signal: the shell reports 130 (Ctrl-C) or 143 (SIGTERM).

PYTHON_SYSTEM ?= python3.11
VENV   := .venv
PY     := $(VENV)/bin/python
PROFILE ?= quick
MEASURED := build/measurements/this-machine.json

.PHONY: book pdf setup setup-publish measure measured chapters render test bench-self reference measure-reference measure-dalek calibrate screenshots clean lab chapter

book: render
	@echo "Book: file://$(CURDIR)/build/book/index.html (works from file://, offline)"
	@echo "PDF:  $(CURDIR)/build/book/costbook.pdf"

# The PDF alone comes with the offline book (it is made from its pages): make pdf is make render.
pdf: render

setup: $(VENV)/.installed

# Binary wheels only, so a missing wheel fails fast instead of compiling for an hour.  uv installs the
# pinned wheels (about 4 GB unpacked) in seconds where pip takes minutes; it uses the system's
# certificate store (--native-tls), and pip does the same install if uv cannot.  Like pip, it compiles
# the packages' bytecode once here (--compile-bytecode): otherwise every process that first imports
# Sage compiles what it imports again, two test workers and their kernels at once (make test's first
# phase took 30-45 s longer on a fresh clone for it; the compilation takes about 20 s here).
# Steadier on a fresh clone: the venv is made without pip (ensurepip unpacks it: 4-10 s) and the
# system's pip puts uv in it (--python); uv installs from its cache alone first (--offline: no index
# request for each of the ~170 pins, 6-8 s here), and asks the index only when the cache lacks a wheel.
# pip comes into the venv only if the install must fall back to it.
UV_VERSION := 0.9.9
UV_INSTALL := $(PY) -m uv pip install --quiet --native-tls --python $(PY)
#
# requirements-excluded.txt names what a dependency's extra would bring that nothing here uses and every
# process pays for: rfc3987-syntax (jupyter-events asks for jsonschema[format-nongpl]) builds an Earley
# grammar whenever jsonschema is imported, 1.3 s of CPU in each process that imports nbformat (every
# test worker, chapter runner and make chapter; it was a third of some test files' time).  Without it
# jsonschema checks no "iri" format, as it documents.  It is left out (uv) or taken out (pip, an older .venv).
PIP_IN_VENV := $(PY) -m ensurepip --default-pip >/dev/null && $(PY) -m pip install --quiet
EXCLUDED := --excludes requirements-excluded.txt
$(VENV)/.installed: requirements.txt requirements-excluded.txt pyproject.toml
	@command -v $(PYTHON_SYSTEM) >/dev/null || { echo "need $(PYTHON_SYSTEM) (SageMath wheels are built for CPython 3.11)"; exit 1; }
	test -x $(PY) || $(PYTHON_SYSTEM) -m venv --without-pip $(VENV)
	$(PY) -m uv --version 2>/dev/null | grep -qE '^uv $(UV_VERSION)( |$$)' || \
	  $(PYTHON_SYSTEM) -m pip --python $(PY) install --quiet --only-binary :all: uv==$(UV_VERSION) || \
	  { $(PIP_IN_VENV) --only-binary :all: uv==$(UV_VERSION); }
	$(UV_INSTALL) --offline --compile-bytecode --only-binary :all: $(EXCLUDED) -r requirements.txt 2>/dev/null || \
	  $(UV_INSTALL) --compile-bytecode --only-binary :all: $(EXCLUDED) -r requirements.txt || \
	  { $(PIP_IN_VENV) --only-binary :all: -r requirements.txt; }
	$(PY) -m uv pip uninstall --quiet --python $(PY) -r requirements-excluded.txt 2>/dev/null || true
	$(UV_INSTALL) --offline --no-deps --no-build-isolation -e . 2>/dev/null || \
	  $(UV_INSTALL) --no-deps --no-build-isolation -e . || { $(PIP_IN_VENV) --no-deps --no-build-isolation -e .; }
	touch $@

# What a Quarto render of the committed chapters needs and no more (the publish workflow: about 400 MB
# where make setup installs 4 GB): the names in requirements-publish.txt at requirements.txt's versions.
setup-publish:
	@command -v $(PYTHON_SYSTEM) >/dev/null || { echo "need $(PYTHON_SYSTEM)"; exit 1; }
	test -x $(PY) || $(PYTHON_SYSTEM) -m venv $(VENV)
	$(PY) -m pip install --quiet --only-binary :all: -c requirements.txt -r requirements-publish.txt
	$(PY) -m pip install --quiet --no-deps -e .

# PROFILE, JOBS and FRESH reach the commands as environment variables, unexpanded ($(value ...)),
# as for `make chapter` below: none appears in a recipe line, so no shell parses them.
unexport PROFILE JOBS FRESH
measure measured chapters: export COSTBOOK_PROFILE = $(value PROFILE)
chapters: export COSTBOOK_JOBS = $(value JOBS)
chapters: export COSTBOOK_FRESH = $(value FRESH)

# make measure always measures this machine; make book (through make chapters) measures only when
# build/measurements has no file measured with this PROFILE since the last install (python -m
# costbook.book measured says which).
measure: setup
	$(VENV)/bin/costbook measure --profile "$$COSTBOOK_PROFILE" --out $(MEASURED)

measured: setup
	@$(PY) -m costbook.book measured $(MEASURED) --after $(VENV)/.installed || \
	  $(VENV)/bin/costbook measure --profile "$$COSTBOOK_PROFILE" --out $(MEASURED)

# Independent chapters in parallel (JOBS at once, default the number of CPUs), the longest first; a
# chapter whose inputs did not change since it last ran is reused from build/cache/chapters (FRESH=1
# executes them all).  The runner ends with a table of every chapter's time.  It measures first
# what make measured would (--measure-after: same rule, same command), on one core, while the
# chapters' kernels start on the other, one at a time, and import their chapters' modules.
chapters: setup
	$(PY) -m costbook.book execute --out build/chapters --measurements $(MEASURED) --measure-after $(VENV)/.installed

# The PDF (python -m costbook.book pdf): the offline book's pages -> pandoc -> Typst -> PDF, no TeX;
# remade only when a page changed.  With quarto on PATH, Quarto renders the same executed chapters
# too: a copy of the project with build/chapters in place of the committed notebooks (python -m
# costbook.book quarto), rendered inside the copy into build/quarto-project/_book; Quarto's
# post-render step (_quarto.yml) puts the PDF made here beside it ($$COSTBOOK_PDF), for its
# "Download PDF" link.  The live estimates fetch their data, which a browser refuses to a page opened
# from file://, so the Quarto book is served over HTTP: the command that does it is printed (the
# offline book embeds the data and needs no server).
render: chapters
	COSTBOOK_MEASUREMENTS=$(CURDIR)/$(MEASURED) $(PY) -m costbook.book render --project . --notebooks build/chapters --out build/book
	$(PY) -m costbook.book pdf --project . --book build/book
	@if command -v quarto >/dev/null; then \
	  $(PY) -m costbook.book quarto --project . --notebooks build/chapters --out build/quarto-project && \
	  cd build/quarto-project && COSTBOOK_PDF=$(CURDIR)/build/book/costbook.pdf QUARTO_PYTHON=$(CURDIR)/$(PY) quarto render && \
	  echo "Quarto book: build/quarto-project/_book (its live estimates need a web server, not file://):" && \
	  echo "  python3 -m http.server --bind 127.0.0.1 --directory build/quarto-project/_book 8000" && \
	  echo "  then open http://127.0.0.1:8000/ (or: cd build/quarto-project && quarto preview)"; fi

# JupyterLab with the chapters; their kernel, sagemath, comes with passagemath-repl in .venv.
lab: setup
	@$(VENV)/bin/jupyter kernelspec list | grep -q '^ *sagemath ' || { echo "no sagemath kernel in $(VENV)"; exit 1; }
	$(VENV)/bin/jupyter lab --notebook-dir=. --ServerApp.default_url=/lab/tree/chapters $(if $(filter 0,$(shell id -u)),--allow-root)

# One chapter, parameters overridden without editing it: CHAPTER=04 (or a path), SET='NAME=VALUE'
# (a Python literal the chapter's parameters cell admits, its type, bounds or choices; for several,
# call python -m costbook.book execute with one --set each).
# Priced with MEASUREMENTS (default: build/measurements/this-machine.json once make book has measured
# this machine, so that the book shows one machine; before that, or with MEASUREMENTS=reference, the
# reference file; its first line says which).  The three values reach the chapter runner as
# environment variables, unexpanded ($(value ...)), and never appear in a command
# line, so no shell parses them; unexport keeps make from expanding them into the recipe's
# environment under their own names.  The runner checks them all before a kernel starts, says in
# one line what failed, exits non-zero, and re-renders the book only after the chapter ran.
unexport CHAPTER SET MEASUREMENTS
chapter: export COSTBOOK_CHAPTER = $(value CHAPTER)
chapter: export COSTBOOK_SET = $(value SET)
chapter: export COSTBOOK_CHAPTER_MEASUREMENTS = $(value MEASUREMENTS)
chapter: export COSTBOOK_FRESH = $(value FRESH)
chapter: setup
	$(PY) -m costbook.book execute --from-env --out build/chapters --render build/book

# Two phases.  First the library tests and strict nbval of every chapter on two workers (pytest-xdist;
# --dist loadfile keeps each chapter's cells on one worker, in order; the chapters' live timings are
# output-ignored, and time with validation.CHECK_PROFILE there: they check that every step and price
# runs, not a bound; --no-loadscope-reorder hands files out in collection order, where
# tests/conftest.py puts the few slow ones first, the longest first).  Then the validation tests alone,
# with the full profile, so that their timings have the machine to themselves.  Each phase ends with
# its 15 slowest tests (--durations), where make test's time goes.  Ctrl-C or SIGTERM ends the
# workers and their kernels too (costbook.book.pytest_interrupt, which pyproject.toml loads).
# the second phase collects only the files that hold validation tests (collecting every test module
# imports them all: seconds of the phase's time); tests/test_architecture.py checks the list
VALIDATION_TESTS := tests/test_validation_bounds.py
# a scheme's own tests live in its folder (sage/costbook/schemes/<scheme>/tests/), found, not listed
SCHEME_TESTS := $(wildcard sage/costbook/schemes/*/tests)
test: setup
	COSTBOOK_VALIDATION_PROFILE=check $(PY) -m pytest -n 2 --dist loadfile --no-loadscope-reorder -m "not validation" tests chapters $(SCHEME_TESTS) --nbval --nbval-sanitize-with tests/sanitize.cfg --nbval-kernel-startup-timeout 300 -p no:cacheprovider --durations=15
	$(PY) -m pytest -m validation $(VALIDATION_TESTS) -p no:cacheprovider --durations=15

# How long make book (fresh, then again with nothing changed), the quick profile (twice, and how far
# the two lie apart) and both phases of make test take on this machine: python -m costbook.book bench
# (it removes build/measurements, build/cache, build/chapters and build/book first), recorded in
# docs/bench/<cpu>.json and tabled in docs/bench/README.md.  Not a test; about 17 minutes on two cores.
bench-self: setup
	$(PY) -m costbook.book bench

# Everything that follows from the committed evidence and the reference machine's prices, written
# again: each scheme's cross-machine scores, every chapter executed in place, the live estimate's
# exports.  The one regeneration command: after make calibrate, a change to a scheme's model or to
# the reference file, or a scheme added (the margins pool every scheme's evidence, so its evidence
# moves the others' intervals here and nowhere else); commit what it writes in one commit.
reference: setup
	$(PY) -m costbook.views.ledger --write-scores
	$(PY) -m costbook.book execute --inplace
	$(PY) -m costbook.book live --out chapters/live

measure-reference: setup
	$(VENV)/bin/costbook measure --profile full --out build/measurements/reference-candidate.json
	@echo "Inspect it, then move it into measurements/reference/ (one file) and run 'make reference'."

# The evidence of the models' error that every prediction interval is made from: each scheme's
# CALIBRATION_CASES validated in two fresh processes each on a quiet machine and in one beside a
# CPU-bound process (which the collector starts and ends), each scheme's written (atomically) to its
# own sage/costbook/schemes/<scheme>/evidence/validation/<this machine>.json (calibrate refuses to add
# to a file of another machine).  About 20 minutes on two cores; run it
# after a change to a scheme's code or counts, and on a machine the evidence lacks, then 'make reference'.
calibrate: setup
	$(PY) -m costbook.book calibrate
	$(PY) -m costbook.book calibrate --processes 1 --beside-busy

# The punch-card seed laptop's prices are scaled by curve25519-dalek 2.0.0's own ratios: rebuild
# bench/curve25519-dalek (its Cargo.lock) and rewrite the committed file (atomically).
measure-dalek: setup
	$(VENV)/bin/costbook measure-dalek --profile full

# Look at what a reader sees: one PNG per rendered page (needs Debian's chromium).
screenshots:
	@command -v chromium >/dev/null || { echo "apt-get install chromium first"; exit 1; }
	mkdir -p build/screenshots
	for page in $$(cd build/book && find . -name '*.html' | sort); do \
	  png=build/screenshots/$$(echo $$page | sed 's|^\./||; s|/|-|g; s|\.html$$|.png|'); \
	  chromium --headless --no-sandbox --disable-gpu --disable-background-networking --no-first-run \
	    --disable-component-update --disable-sync --user-data-dir=$$(mktemp -d) --virtual-time-budget=8000 \
	    --window-size=1400,4000 --screenshot=$$png file://$(CURDIR)/build/book/$$page 2>/dev/null; \
	  echo $$png; done

clean:
	rm -rf build _book
