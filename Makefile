# Two entry points on a fresh machine (only Python 3.11 and the OS): `make demo`, `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: demo test lint typecheck bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[ui,dev]'
	$(BIN)/python -m compileall -q src  # .pyc files up front: PYTHONDONTWRITEBYTECODE may be set
	touch $(STAMP)

# tersh's main job on a real command: run ruff over tersh's own sources with every rule on
# (hundreds of findings) through `tersh run`; the model's text goes to a file, the screen shows
# its first lines and a side-by-side of what ruff printed against what the model receives.
DEMO_HOME := $(CURDIR)/.demo-home
DEMO_CMD := $(BIN)/ruff check --select ALL --no-cache src
demo: $(STAMP)
	@rm -rf $(DEMO_HOME) && mkdir -p $(DEMO_HOME)
	@TERSH_HOME=$(DEMO_HOME) $(BIN)/tersh enable >/dev/null
	@echo '$$ tersh run -- ruff check --select ALL --no-cache src'
	@TERSH_HOME=$(DEMO_HOME) $(BIN)/tersh run -- $(DEMO_CMD) > $(DEMO_HOME)/model-text.txt 2>&1; \
	  code=$$?; \
	  echo "(exit code $$code; the model's whole text: .demo-home/model-text.txt, its first lines:)"; \
	  head -c 2000 $(DEMO_HOME)/model-text.txt | head -n 6 | cut -c 1-160; echo '  …'; \
	  echo; TERSH_HOME=$(DEMO_HOME) $(BIN)/python scripts/demo_summary.py \
	    $(DEMO_HOME)/model-text.txt $$code $(DEMO_CMD)

lint: $(STAMP)
	$(BIN)/ruff check src tests scripts bench
	$(BIN)/python scripts/gen_rules.py --check

typecheck: $(STAMP)
	$(BIN)/mypy

test: $(STAMP) lint typecheck
	@sh scripts/install_browser.sh
	@sh scripts/install_hosts.sh
	$(BIN)/python -m pytest -n 2 -q

# Benchmarks (medians and ratios measured side by side); see bench/*.py for options.
bench: $(STAMP)
	$(BIN)/python bench/bench_corpus.py
	$(BIN)/python bench/bench_run.py
	$(BIN)/python bench/bench_shapes.py
	$(BIN)/python bench/bench_gain.py
	$(BIN)/python bench/bench_hook.py
	$(BIN)/python bench/bench_rewrite.py
	$(BIN)/python bench/bench_rtk.py
	$(BIN)/python bench/bench_ledger.py
	$(BIN)/python bench/bench_tools.py
	$(BIN)/python bench/bench_rules_tests.py
	$(BIN)/python bench/bench_rules_builds.py
	$(BIN)/python bench/bench_rules_git_pkg.py

clean:
	rm -rf $(VENV) .demo-home .pytest_cache .mypy_cache .ruff_cache
