# veracity: `make demo` runs the main job on the sample corpus, `make test` runs the tests.
# Both create (or reuse) .venv and install what they need; nothing else is needed by hand.

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
# Re-install when the project's requirements change.
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)
DEMO_INDEX ?= .cache/demo-index

.PHONY: demo test test-unit lint bench install clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	# torch comes from the machine's local CPU wheel; pin it so no multi-GB CUDA build is fetched.
	$(PIP) install -q torch==2.13.0
	$(PIP) install -q -e '.[dev,hf]'
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/veracity index examples/sample_corpus --index $(DEMO_INDEX)
	$(VENV)/bin/veracity search "How fast do honeybee wings beat?" --index $(DEMO_INDEX) -k 3
	$(VENV)/bin/veracity search "What treatment controls varroa mites?" --index $(DEMO_INDEX) --mode bm25 -k 3
	$(VENV)/bin/veracity search "queen bee lifespan" --index $(DEMO_INDEX) --mode dense -k 3
	$(VENV)/bin/veracity check --premise examples/sample_corpus/biology/waggle_dance.md \
		--claim "A honeybee's wings beat about 230 times per second."
	$(VENV)/bin/veracity check --premise examples/sample_corpus/biology/waggle_dance.md \
		--claim "A honeybee's wings beat about 400 times per second."

test: $(STAMP)
	$(PY) -m pytest -q

test-unit: $(STAMP)
	$(PY) -m pytest -q -m unit

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/mypy

bench: $(STAMP)
	$(PY) bench/retrieval_noveleval.py
	$(PY) bench/retrieval_speed.py
	$(PY) bench/verifier.py
	$(PY) bench/verifier_speed.py

clean:
	rm -rf $(VENV) .cache build dist
