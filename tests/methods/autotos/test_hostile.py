"""Issue 31's attacks as model-written AutoToS functions: through the harness
(``check``) and through ``veriplan autotos run`` with a scripted model. Each
ends as a recorded error category; nothing gets out, no secret reaches the
feedback or the record, no check is forged, veriplan never crashes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.methods.autotos.hostile_scripts import answers  # noqa: F401 - the CLI imports it
from tests.sandbox import hostile
from veriplan.cli import main
from veriplan.domains.autotos import get_domain
from veriplan.methods.autotos import Config
from veriplan.methods.autotos.method import check

DOMAIN = get_domain("24game")
SUCC, GOAL = DOMAIN.reference_code("succ"), DOMAIN.reference_code("goal")
EXAMPLES = [{"id": "u", "init": [1, 1, 4, 6], "meta": {}}]
UNITS = [{"id": "g", "init": [24], "meta": {"expected": True}},
         {"id": "n", "init": [1, 2], "meta": {"expected": False}}]
SECRET = "sk-hostile-test-7d1e9b3c88"
FAST = Config(search_limit=5)
ROOT = Path(__file__).resolve().parents[3]
PRELUDE = ""  # code run first in a subprocess parent


def goal_code(body: str, returns: str = "False", **fmt: str) -> str:
    return hostile.function("goal", body, returns, **fmt)


def succ_code(body: str, returns: str = "[]", **fmt: str) -> str:
    return hostile.function("succ", body, returns, **fmt)


# --- through the harness ---------------------------------------------------------------

def test_forged_check_table_changes_no_verdict():
    forged = goal_code(hostile.FORGE_CHECKS)  # always False, and the old table patched
    out = check(DOMAIN, "goal_tests", None, forged, FAST, instances=UNITS)
    assert out["failure"]["category"] == "goal_soundness"
    out = check(DOMAIN, "soundness", succ_code(hostile.FORGE_CHECKS, "None"), GOAL, FAST,
                instances=EXAMPLES)
    assert out["failure"] is not None


# Module level: whatever the harness used to judge mutation in the sandbox (before
# this check moved to veriplan's process: pickle) now says nothing changed
HIDE_MUTATION = """
import sys
class _Same:
    dumps = staticmethod(lambda *a, **k: b"same")
    loads = staticmethod(lambda *a, **k: None)
for name, h in list(sys.modules.items()):
    if "autotos" in name and name.endswith("harness") and hasattr(h, "pickle"):
        h.pickle = _Same
"""


def test_a_successor_function_cannot_hide_that_it_changes_its_input():
    hiding = HIDE_MUTATION + "\n\n" + SUCC.replace(
        "out = []", "state.sort(reverse=True)\n    out = []")
    out = check(DOMAIN, "soundness", hiding, GOAL, FAST, instances=EXAMPLES)
    failure = out["failure"]
    assert failure is not None and failure["category"] == "input_changed"
    assert failure["evidence"]["before"] == [1, 1, 4, 6]
    assert failure["evidence"]["after"] == [6, 4, 1, 1]


def test_a_goal_test_that_sorts_its_input_is_not_a_changed_input():
    # the paper's check (b) is about the successor function: a goal test that
    # reorders the state it is given changes the state the search expands
    # next, which the successor function gets unchanged
    sorting = GOAL.replace("return", "state.sort()\n    return")
    out = check(DOMAIN, "soundness", SUCC, sorting, FAST, instances=EXAMPLES)
    assert out["failure"] is None, out["failure"]


def test_clearing_the_harness_is_a_category_not_a_crash():
    two = EXAMPLES + [{"id": "v", "init": [4, 6, 1, 1], "meta": {}}]
    out = check(DOMAIN, "soundness", SUCC, goal_code(hostile.CLEAR_TABLE, "False"), FAST,
                instances=two)
    assert out["failure"]["category"] == "malformed_answer"
    out = check(DOMAIN, "evaluate", succ_code(hostile.CLEAR_TABLE), GOAL, FAST, instances=two)
    assert out["failure"]["category"] == "malformed_answer"  # it broke its own loading


def test_an_evaluation_that_kills_every_sandbox_gives_up_after_five():
    dies = succ_code("import os\nos._exit(3)")
    instances = [{"id": str(i), "init": [1, 1, 4, 6], "meta": {}} for i in range(8)]
    out = check(DOMAIN, "evaluate", dies, GOAL, FAST, instances=instances)
    failures = [r["failure"] for r in out["results"]]
    assert [f["category"] for f in failures] == ["succ_exception"] * 8
    assert all("not searched" in f["message"] for f in failures[5:])


def test_a_forged_result_and_exit_is_an_error_of_the_function():
    out = check(DOMAIN, "goal_tests", None, goal_code(hostile.FORGE_RESULT), FAST,
                instances=UNITS)
    assert out["failure"]["category"] == "goal_exception"
    assert "ended the sandbox's process" in out["failure"]["message"]
    out = check(DOMAIN, "soundness", succ_code(hostile.FORGE_RESULT), GOAL, FAST,
                instances=EXAMPLES)
    assert out["failure"]["category"] == "succ_exception"
    assert out["failure"]["evidence"]["state"] == [1, 1, 4, 6]


@pytest.mark.parametrize("role", ["succ", "goal"])
def test_a_loop_in_c_code_is_too_slow(role):
    if role == "succ":
        out = check(DOMAIN, "soundness", succ_code(hostile.C_LOOP), GOAL, FAST,
                    instances=EXAMPLES)
    else:  # deep in the search: the state it stalls on comes back as evidence
        loop = "if len(state) == 1:\n" + hostile.indent(hostile.C_LOOP)
        out = check(DOMAIN, "soundness", SUCC, goal_code(loop), FAST, instances=EXAMPLES)
    failure = out["failure"]
    assert failure["category"] == f"{role}_too_slow"
    assert "stopped from outside" in failure["message"]
    state = failure["evidence"]["state"]
    assert state == [1, 1, 4, 6] if role == "succ" else len(state) == 1


def test_evaluation_restarts_after_a_call_is_killed():
    loop = "if state == [1, 1, 4, 6]:\n" + hostile.indent(hostile.C_LOOP)
    instances = [{"id": "a", "init": [1, 1, 4, 6], "meta": {}},
                 {"id": "b", "init": [4, 6, 1, 1], "meta": {}}]
    out = check(DOMAIN, "evaluate", succ_code(loop, "__import__('itertools')"
                                              ".chain([], [])"), GOAL, FAST,
                instances=instances)
    first, second = out["results"]
    assert first["failure"]["category"] == "succ_too_slow"
    assert second["failure"] is None  # a fresh sandbox went on


def test_the_sandbox_never_sees_the_expected_answers():
    spy = goal_code("import gc\njobs = [repr(o) for o in gc.get_objects() "
                    "if isinstance(o, dict) and 'instances' in o]\n"
                    "raise ValueError('found the job' if jobs else 'no job', "
                    "any(\"'expect\" + \"ed': \" in j for j in jobs))")
    out = check(DOMAIN, "goal_tests", None, spy, FAST, instances=UNITS)
    assert out["failure"]["category"] == "goal_exception"
    assert "('found the job', False)" in out["failure"]["message"]  # no answers in it


# --- through `veriplan autotos run` with a scripted model --------------------------------

SCRIPT = ["--backend", "scripted", "--script",
          "tests.methods.autotos.hostile_scripts:answers", "--no-cache"]
CONFIG = ["--config", "max_calls=2", "--config", "eval_limit=3",
          "--config", "evaluate_progress=false"]


def run(attack: str, tmp_path, data_dir, monkeypatch, capsys) -> tuple[dict, str]:
    target = tmp_path / "target"
    target.mkdir()
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("VERIPLAN_TEST_ATTACK", attack)
    monkeypatch.setenv("VERIPLAN_TEST_OUT", str(target))
    records = tmp_path / "records"
    argv = ["autotos", "run", "--domain", "24game", "--data-dir", str(data_dir),
            "--repeats", "1", "--out", str(records), *CONFIG, *SCRIPT]
    if attack == "READ_ENVIRON":  # a parent whose environment held the key from its start
        done = subprocess.run([sys.executable, "-c", f"{PRELUDE}from veriplan.cli import main\n"
                               f"raise SystemExit(main({argv!r}))"], capture_output=True,
                              text=True, env=dict(os.environ), cwd=ROOT, check=False)
        code, printed = done.returncode, done.stdout + done.stderr
    else:
        code = main(argv)
        printed = capsys.readouterr().out
    assert code == 0  # veriplan carried on
    files = list(records.glob("*.json"))
    assert len(files) == 1
    text = files[0].read_text()
    assert SECRET not in text and SECRET not in printed
    assert list(target.iterdir()) == []  # nothing written outside
    return json.loads(text), text


@pytest.mark.parametrize("attack, category", [
    ("READ_ENVIRON", "goal_exception"),
    ("READ_FILE", "goal_exception"),
    ("CREATE_FILES", "goal_soundness"),
    ("FORK_EXEC", "goal_soundness"),
    ("FORGE_CHECKS", "goal_soundness"),
    ("FORGE_RESULT", "goal_exception"),
    ("CLEAR_TABLE", "goal_soundness"),
    ("C_LOOP", "goal_too_slow"),
])
def test_autotos_run_contains_the_attack(attack, category, tmp_path, data_dir, monkeypatch,
                                         capsys):
    rec, text = run(attack, tmp_path, data_dir, monkeypatch, capsys)
    assert rec["categories"].get(category), rec["categories"]
    checks = [s for s in rec["steps"] if s["kind"] == "check" and s["mode"] == "goal_tests"]
    assert checks and all(s["failure"] for s in checks)  # never forged into a pass
    assert rec["status"] == "budget_exhausted"
    if attack in ("READ_ENVIRON", "READ_FILE"):
        assert "root:" not in text


def test_autotos_run_leaves_no_process_behind(tmp_path, data_dir, monkeypatch, capsys):
    run("OUTLIVE", tmp_path, data_dir, monkeypatch, capsys)
    time.sleep(3)  # an escaped shell would write after 2 s
    assert list((tmp_path / "target").iterdir()) == []
