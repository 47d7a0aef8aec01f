VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: example test docs bench chromium clean

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test,docs]'
	touch $@

example: $(VENV)/.installed
	$(VENV)/bin/faketensor run examples/transformer_1b.py

# The suite builds the docs too (tests/test_docs.py: warnings are errors, every example runs).
test: $(VENV)/.installed chromium
	$(PY) -m pytest -q -n 2 tests

# The documentation site: docs/_build/html/index.html. Any warning fails the build.
docs: $(VENV)/.installed
	$(PY) -m sphinx -W --keep-going -b html docs docs/_build/html

# Headless Chromium for tests/test_html_report.py, installed when absent and apt-get can (root,
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
	rm -rf $(VENV) build *.egg-info docs/_build docs/reference/generated
