"""Each method's typed metrics are what its report section computes: every
name its ``Metric`` holds is a field of the rows the section writes (a
dataclass field or a key of report.json's rows in the section's modules)."""

from __future__ import annotations

import ast
import importlib
from enum import StrEnum
from pathlib import Path

import pytest

from veriplan.methods import method_specs

WITH_METRICS = [s for s in method_specs() if s.metrics is not None]


def _written_names(module_name: str) -> set[str]:
    """The field names and string keys of ``module_name`` and of the modules of
    the same method folder it imports (the section's own parts)."""
    module = importlib.import_module(module_name)
    folder = module_name.rsplit(".", 1)[0]
    tree = ast.parse(Path(module.__file__).read_text())
    names = {n.target.id for n in ast.walk(tree)
             if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}
    names |= {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)
              and isinstance(n.value, str)}
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom) and n.module and n.module.startswith(folder + ".") \
                and n.module != module_name:
            names |= _written_names(n.module)
    return names


def test_the_methods_with_a_report_section_of_their_own_have_metrics():
    assert {s.name for s in WITH_METRICS} >= {"autotos", "sqbcp", "aec", "closed-loop"}
    for spec in method_specs():
        if spec.report is not None:
            assert spec.metrics is not None, spec.name


@pytest.mark.parametrize("spec", WITH_METRICS, ids=lambda s: s.name)
def test_every_metric_is_one_the_report_section_computes(spec):
    assert issubclass(spec.metrics, StrEnum)
    sections = {s.report_section() for s in method_specs()
                if s.metrics is spec.metrics and s.report is not None}
    assert sections, f"{spec.name}: no report section computes its metrics"
    written = set().union(*(_written_names(fn.__module__) for fn in sections))
    assert {m.value for m in spec.metrics} <= written
