"""Parse, write, re-parse, compare: over every PDDL file in the data, the
ADL fixture and ALFWorld's household domain."""

from __future__ import annotations

import subprocess
import sys
import warnings
import zipfile
from pathlib import Path

import pytest

from tests.helpers import ADL_DOMAIN, ADL_PROBLEM
from tests.pddl.pddl_files import domain_problem_sets
from veriplan.errors import PDDLLenientWarning, PDDLParseError
from veriplan.pddl.parser import parse_domain, parse_problem, read_domain, read_problem
from veriplan.pddl.writer import domain_to_pddl, problem_to_pddl


def test_roundtrip_every_data_file(data_dir):
    n = 0
    for dom_path, problems in domain_problem_sets(data_dir):
        d = read_domain(dom_path)
        d2 = parse_domain(domain_to_pddl(d))
        assert d2 == d, dom_path
        for p in problems:
            prob = read_problem(p, d)
            assert parse_problem(problem_to_pddl(prob), d2) == prob, p
            n += 1
    assert n > 2000


def test_roundtrip_adl():
    d = parse_domain(ADL_DOMAIN)
    assert parse_domain(domain_to_pddl(d)) == d
    p = parse_problem(ADL_PROBLEM, d)
    assert parse_problem(problem_to_pddl(p), d) == p


@pytest.fixture(scope="module")
def alfred_pddl(tmp_path_factory) -> Path:
    """ALFWorld's domain, taken from the alfworld==0.4.2 wheel (never vendored)."""
    tmp = tmp_path_factory.mktemp("alfworld")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet",
         "alfworld==0.4.2", "-d", str(tmp)], capture_output=True, text=True)
    wheels = list(tmp.glob("alfworld-0.4.2-*.whl"))
    if proc.returncode != 0 or not wheels:
        pytest.fail(f"could not download alfworld==0.4.2 from PyPI:\n{proc.stderr[-800:]}")
    with zipfile.ZipFile(wheels[0]) as z:
        z.extract("alfworld/data/alfred.pddl", tmp)
    return tmp / "alfworld" / "data" / "alfred.pddl"


def test_alfred_domain_strict_is_an_error(alfred_pddl):
    with pytest.raises(PDDLParseError) as info:
        read_domain(alfred_pddl)
    assert info.value.file == str(alfred_pddl) and info.value.line is not None


def test_alfred_domain_lenient_warns_with_locations(alfred_pddl):
    with pytest.warns(PDDLLenientWarning):
        d = read_domain(alfred_pddl, strict=False)
    text = "\n".join(d.warnings)
    assert f"{alfred_pddl}:72:" in text and "predicate checked" in text
    assert "type 'object' is built in" in text
    assert "sinkbasintype" in d.free_constants
    assert len(d.actions) == 15
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PDDLLenientWarning)
        again = parse_domain(domain_to_pddl(d), strict=False)
    assert again == d
