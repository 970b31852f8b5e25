# confbot: `make run` starts the product on its embedded defaults, `make test` runs the tests.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint docs screenshots bge test-bge benchmarks clean

# The editable install of a flat layout makes setuptools print an "Editable installation"
# box (folders named like the packages take precedence: intended here); it is silenced.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	PYTHONWARNINGS="ignore:Editable installation" $(BIN)/pip install --quiet -e ".[dev]"
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/confbot serve

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

test: lint
	$(BIN)/pytest -q --durations=25

# Regenerate the README's settings table from core/settings.py (tests/test_docs.py checks it).
docs: $(STAMP)
	$(BIN)/python -m bot.docs README.md

# Rewrite the README's pictures of an answer, in Slack and on /ask (docs/images), with the
# browser tests (the Slack one needs an emoji font: Debian's fonts-noto-color-emoji).
screenshots: $(STAMP)
	$(BIN)/pip install --quiet -e ".[browser]"
	CONFBOT_TEST_SCREENSHOTS=write CONFBOT_TEST_BROWSER=required $(BIN)/pytest -q tests/test_browser.py -k readme

# Optional BGE-M3 / BGE reranker support. FlagEmbedding asks for an unpinned torch, so torch
# is pinned in the same command (a CPU build of 2.13.0; any other request pulls CUDA wheels).
bge: $(STAMP)
	$(BIN)/pip install --quiet "torch==2.13.0" -e ".[bge]"

test-bge: bge
	$(BIN)/pytest -q -m bge

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
