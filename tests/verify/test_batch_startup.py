"""What ``veriplan validate --batch`` loads before its first line (issue 36): the
command line read without argparse, the plan readers and their patterns only when a
line needs them, the same records and usage errors either way."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from pathlib import Path

import pytest

import veriplan.cli as cli
from tests.conftest import EXAMPLES
from veriplan.lazyre import LazyPattern

DOM = str(EXAMPLES / "blocks-domain.pddl")
PROB = str(EXAMPLES / "blocks-problem.pddl")
GOOD = (EXAMPLES / "blocks-plan.txt").read_text()

# In a fresh interpreter: run the command line, then print its exit code and the
# modules loaded, as one JSON line on stderr (stdout holds the records).
_PROBE = ("import json, sys\nfrom veriplan.cli import main\ncode = main(sys.argv[1:])\n"
          "print(json.dumps([code, sorted(sys.modules)]), file=sys.stderr)\n")


def _run_fresh(*argv: str) -> tuple[int, set[str], str]:
    proc = subprocess.run([sys.executable, "-c", _PROBE, *argv], capture_output=True,
                          text=True, timeout=120)
    code, modules = json.loads(proc.stderr.strip().splitlines()[-1])
    return code, set(modules), proc.stdout


@pytest.fixture(scope="module")
def clean_batch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("startup") / "clean.jsonl"
    lines = [{"id": 1, "domain": DOM, "problem": PROB, "plan": GOOD},
             {"id": 2, "domain": DOM, "problem": PROB, "plan": "(unstack c a)\n(pick-up b)"}]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def test_a_batch_of_clean_plans_loads_no_reader_argparse_or_pathlib(clean_batch):
    code, loaded, out = _run_fresh("validate", "--batch", str(clean_batch), "--workers", "1")
    assert code == 1
    assert [json.loads(r)["valid"] for r in out.splitlines()] == [True, False]
    assert not loaded & {"argparse", "pathlib", "threading", "veriplan.planio",
                         "veriplan.planio.parsed", "veriplan.cli.jsondoc"}


def test_a_line_for_the_general_reader_loads_it(tmp_path):
    batch = tmp_path / "noisy.jsonl"
    batch.write_text(json.dumps({"domain": DOM, "problem": PROB,
                                 "plan": "Plan:\n1. (unstack c a)\n(self-destruct)"}) + "\n")
    code, loaded, out = _run_fresh("validate", "--batch", str(batch))
    assert code == 1 and json.loads(out)["failure"] == "unread"
    assert "veriplan.planio.parsed" in loaded and "argparse" not in loaded


# Command lines _batch_args reads, and ones it leaves to argparse.
READ = [
    ["validate", "--batch", "b.jsonl"],
    ["validate", "--batch", "-"],
    ["validate", "--batch", ""],
    ["validate", "--workers", "3", "--batch", "b.jsonl", "--confine", "--base-dir", "d"],
    ["validate", "--batch", "b.jsonl", "--max-bytes", "64k", "--lenient", "--workers", "0"],
    ["validate", "--batch", "b.jsonl", "--workers", " 2", "--max-bytes", "10"],
]
LEFT = [
    ["validate", "--batch"],
    ["validate", "--batch", "b.jsonl", "--json"],
    ["validate", "--batch", "b.jsonl", "--batch", "c.jsonl"],
    ["validate", "--batch=b.jsonl"],
    ["validate", "--bat", "b.jsonl"],
    ["validate", "--batch", "b.jsonl", "--workers", "-1"],
    ["validate", "--batch", "b.jsonl", "--workers", "two"],
    ["validate", "--batch", "b.jsonl", "--max-bytes", "0"],
    ["validate", "--batch", "b.jsonl", "--domain", "d.pddl"],
    ["validate", "--batch", "b.jsonl", "extra"],
    ["validate", "--batch", "b.jsonl", "--"],
    ["validate", "--batch", "b.jsonl", "-h"],
    ["validate", "--plan", "p.txt"],
    ["solve-classical", "--batch", "b.jsonl"],
]


@pytest.mark.parametrize("argv", READ, ids=" ".join)
def test_batch_args_are_argparse_s(argv):
    fast = cli._batch_args(argv)
    assert fast is not None
    slow = cli._parser(only_validate=True).parse_args(argv)
    assert fast.usage_error is not None and slow.usage_error is not None
    assert {**vars(fast), "usage_error": None} == {**vars(slow), "usage_error": None}


@pytest.mark.parametrize("argv", LEFT, ids=" ".join)
def test_other_command_lines_are_left_to_argparse(argv):
    assert cli._batch_args(argv) is None


def test_a_usage_error_reads_as_argparse_s(capsys, clean_batch):
    with pytest.raises(SystemExit) as exc:
        cli.main(["validate", "--batch", str(clean_batch), "--workers", "0"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: veriplan validate --domain D --problem P --plan FILE")
    assert err.endswith("veriplan validate: error: --workers must be at least 1, not 0\n")


def test_an_in_process_run_leaves_the_collector_as_it_was(capsys, clean_batch):
    enabled = gc.isenabled()
    assert cli.main(["validate", "--batch", str(clean_batch)]) == 1
    assert len(capsys.readouterr().out.splitlines()) == 2
    assert gc.get_freeze_count() == 0 and gc.isenabled() == enabled


def test_a_lazy_pattern_compiles_on_first_use_and_answers_as_compiled():
    rx = LazyPattern(r"(\d+)-(?P<b>[a-z]+)", 0)
    assert "search" not in vars(rx)
    assert rx.search("x 12-ab").groups() == ("12", "ab")
    assert "search" in vars(rx) and rx.groupindex == {"b": 2} and rx.groups == 2
    assert rx.sub("#", "1-a 2-b") == "# #" and rx.findall("3-c") == [("3", "c")]
    assert rx.compiled.pattern == rx.pattern == r"(\d+)-(?P<b>[a-z]+)"
    with pytest.raises(AttributeError):
        rx.nonsense  # noqa: B018
    bad = LazyPattern("(")
    with pytest.raises(Exception, match="missing"):
        bad.match("x")


def test_the_plan_readers_compile_no_pattern_at_import():
    code = ("import re, veriplan.planio.parsed as p, veriplan.planio.pddl_plan as q\n"
            "from veriplan.lazyre import LazyPattern\n"
            "kept = [(k, v) for m in (p, q) for k, v in vars(m).items()]\n"
            "compiled = [k for k, v in kept if isinstance(v, re.Pattern)]\n"
            "used = [k for k, v in kept if isinstance(v, LazyPattern) and 'match' in vars(v)]\n"
            "print(compiled, used)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.stdout.strip() == "[] []", out.stderr
