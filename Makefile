VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: example test test-main test-pure test-matrix test-matrix-run test-matrix-full docs bench chromium clean

# uv (one wheel, installed by pip) resolves and installs the test environment in seconds where
# pip takes a minute or more; its cache also serves the nox venvs and the example's.
$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q uv
	$(VENV)/bin/uv pip install -q -p $(PY) -e '.[test,docs,matrix]'
	touch $@

# The example needs only the package and its required dependencies (numpy, wrapt), in a venv
# of its own, made by uv where it is (on PATH or in $(VENV)), else by venv and pip; the
# installer's output goes to $(EXAMPLE_VENV)/pip.log and is shown only when it fails.
EXAMPLE_VENV ?= .venv-example

$(EXAMPLE_VENV)/.installed: pyproject.toml
	@UV=$$(command -v uv || { test -x $(VENV)/bin/uv && echo $(VENV)/bin/uv; }); \
	if [ -n "$$UV" ]; then \
	  $$UV venv -q -p python3 $(EXAMPLE_VENV) && \
	  $$UV pip install -q -p $(EXAMPLE_VENV)/bin/python -e . >$(EXAMPLE_VENV)/pip.log 2>&1; \
	else \
	  python3 -m venv $(EXAMPLE_VENV) && \
	  $(EXAMPLE_VENV)/bin/python -m pip install -q --disable-pip-version-check -e . \
	    >$(EXAMPLE_VENV)/pip.log 2>&1; \
	fi || { cat $(EXAMPLE_VENV)/pip.log; exit 1; }
	@touch $@

example: $(EXAMPLE_VENV)/.installed
	$(EXAMPLE_VENV)/bin/faketensor run examples/transformer_1b.py

# The test targets let Python cache bytecode (__pycache__ in the checkout and the venvs) even
# where PYTHONDONTWRITEBYTECODE is set: the suite starts hundreds of interpreters (the CLI, the
# real runs, the nox sessions), each of which would otherwise compile the package again.
# (Defined before NOX_CI, which takes its value where it is defined: the nox sessions had
# run without it.)
TEST_ENV := env -u PYTHONDONTWRITEBYTECODE

# The matrix's venvs are installed (nox --install-only, mostly downloads) while the main
# suite runs, and then its sessions run beside the main suite's, at a lower priority
# (nice): they take the CPU time the main suite leaves (its workers' waits on real runs,
# subprocesses and clusters, its tail on one worker) and the rest after it. Its output
# (.nox/matrix.log) is shown when both have ended; a failing main suite stops it (its own
# process group, made by setsid).
NOX_CI := $(TEST_ENV) FT_MATRIX_CI=1 $(VENV)/bin/nox --reuse-venv=yes
MATRIX_NICE ?= 10
test: $(VENV)/.installed chromium
	@mkdir -p .nox
	@setsid sh -c '$(NOX_CI) -t ci --install-only >.nox/install.log 2>&1 || \
	  { cat .nox/install.log; exit 1; }; \
	  exec nice -n $(MATRIX_NICE) $(MAKE) --no-print-directory test-matrix-run' \
	  >.nox/matrix.log 2>&1 & pid=$$!; \
	$(MAKE) --no-print-directory test-main || { kill -- -$$pid 2>/dev/null; wait $$pid; exit 1; }; \
	wait $$pid; rc=$$?; cat .nox/matrix.log; exit $$rc

# the full suite on the main combination (this Python + the newest NumPy: .venv);
# TESTS=tests/core runs a part of it the same way
TESTS ?= tests
test-main: $(VENV)/.installed chromium
	$(TEST_ENV) $(PY) -m pytest -q -n 2 --dist loadgroup $(TESTS)

# the same suite without the compiled accelerator (docs/internals/accelerator.md): the
# pure-Python patches a machine without a C compiler installs
test-pure: $(VENV)/.installed chromium
	FAKETENSOR_PURE_PYTHON=1 $(PY) -m pytest -q -n 2 tests

# the version matrix's CI subset (noxfile.py ``CI``: each NumPy of the window on the oldest
# Python, each Python on the newest NumPy), SciPy's next version, and the wheel and sdist as
# users install them (venvs under .nox, reused by later runs)
test-matrix: $(VENV)/.installed
	$(NOX_CI) -t ci --install-only
	@$(MAKE) --no-print-directory test-matrix-run

# the CI sessions, installed, in two lanes at once (noxfile.py LANE_B), each pytest in one
# process: the two cores stay busy through each session's serial start (the venv, imports,
# collection). Each lane's output is shown when both have ended (.nox/lane-[ab].log).
test-matrix-run:
	@mkdir -p .nox; echo "nox sessions tagged ci-a and ci-b, side by side"
	@FT_MATRIX_WORKERS=0 $(NOX_CI) --no-install -t ci-a >.nox/lane-a.log 2>&1 & pid=$$!; \
	FT_MATRIX_WORKERS=0 $(NOX_CI) --no-install -t ci-b >.nox/lane-b.log 2>&1; b=$$?; \
	wait $$pid; a=$$?; cat .nox/lane-a.log .nox/lane-b.log; \
	grep -h "^nox > Session" .nox/lane-a.log .nox/lane-b.log; test $$a = 0 -a $$b = 0

# every Python x NumPy of the window with the whole compatibility subset
test-matrix-full: $(VENV)/.installed
	$(TEST_ENV) $(VENV)/bin/nox --reuse-venv=yes

# The documentation site: docs/_build/html/index.html. Any warning fails the build
# (the full suite builds it too: tests/test_docs.py, where every example runs).
docs: $(VENV)/.installed
	$(PY) -m sphinx -W --keep-going -b html docs docs/_build/html

# Headless Chromium for tests/planner/test_html_report.py, installed when absent and apt-get can (root,
# or sudo without a password); never fails: without it those tests skip.
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO="sudo -n"; fi; \
	  command -v apt-get >/dev/null 2>&1 && \
	  { $$SUDO apt-get install -y -q --no-install-recommends chromium >/dev/null 2>&1 || \
	    { $$SUDO apt-get update -q >/dev/null 2>&1 && \
	      $$SUDO apt-get install -y -q --no-install-recommends chromium >/dev/null 2>&1; }; }; \
	  command -v chromium >/dev/null 2>&1 || echo "chromium not installed: the HTML report tests skip"; }

bench: $(VENV)/.installed
	$(PY) benchmarks/bench_ops.py

clean:
	rm -rf $(VENV) $(EXAMPLE_VENV) build *.egg-info docs/_build docs/reference/generated
