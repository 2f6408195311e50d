# veriplan: `make demo` and `make test` work on a fresh machine with Python >= 3.11.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
EX     := src/veriplan/examples

.PHONY: install demo test lint bench clean

$(PY):
	$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "veriplan needs Python >= 3.11"'
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(PY) pyproject.toml
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev,planners]"
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	@echo "== validate a correct plan"
	$(VENV)/bin/veriplan validate --domain $(EX)/blocks-domain.pddl --problem $(EX)/blocks-problem.pddl --plan $(EX)/blocks-plan.txt
	@echo "== validate a broken plan (exit code 1 is the verdict 'not valid')"
	-$(VENV)/bin/veriplan validate --domain $(EX)/blocks-domain.pddl --problem $(EX)/blocks-problem.pddl --plan $(EX)/blocks-bad-plan.txt
	@echo "== validate a PlanBench-style natural-language plan"
	$(VENV)/bin/veriplan validate --domain $(EX)/blocks-domain.pddl --problem $(EX)/blocks-problem.pddl --plan $(EX)/blocks-plan-planbench.txt --format planbench --planbench-config $(EX)/blocks-planbench.yaml
	@echo "== solve with Fast Downward; the plan is checked by veriplan's validator"
	$(VENV)/bin/veriplan solve-classical $(EX)/blocks-domain.pddl $(EX)/blocks-problem.pddl

test: $(STAMP)
	$(VENV)/bin/ruff check src tests benchmarks
	$(PY) -m pytest -q

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests benchmarks

bench: $(STAMP)
	$(PY) benchmarks/validate_speed.py
	$(PY) benchmarks/ground_speed.py

clean:
	rm -rf $(VENV) build dist src/*.egg-info .pytest_cache .ruff_cache .hypothesis
