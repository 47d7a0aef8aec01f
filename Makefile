VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: example test bench clean

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $@

example: $(VENV)/.installed
	$(VENV)/bin/faketensor run examples/transformer_1b.py

test: $(VENV)/.installed
	$(PY) -m pytest -q -n 2 tests

bench: $(VENV)/.installed
	$(PY) benchmarks/bench_ops.py

clean:
	rm -rf $(VENV) build *.egg-info
