"""Bad input never loses a verdict (issue 32): one test per row of the issue's table,
through ``veriplan validate`` and ``validate --batch`` as a user runs them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest

import veriplan.verify.batch as batch
from tests.conftest import EXAMPLES
from veriplan.pddl.task import Task, load_task
from veriplan.planio import parse_plan
from veriplan.verify import validate_plan
from veriplan.verify.batch import batch_lines

DOM = str(EXAMPLES / "blocks-domain.pddl")
PROB = str(EXAMPLES / "blocks-problem.pddl")
CFG = str(EXAMPLES / "blocks-planbench.yaml")
GOOD = (EXAMPLES / "blocks-plan.txt").read_text()
SRC = str(Path(batch.__file__).parents[2])
ENV = {**os.environ, "PYTHONPATH": SRC}


pytestmark = pytest.mark.usefixtures("fresh_batch_caches")


def item(ident: object, plan: str = GOOD, **kw: object) -> dict:
    return {"id": ident, "domain": DOM, "problem": PROB, "plan": plan, **kw}


def veriplan(*args: str, stdin: bytes | None = None, timeout: float = 60
             ) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "veriplan.cli", *args], input=stdin,
                          capture_output=True, env=ENV, timeout=timeout, check=False)


def strict_json(text: str) -> dict:
    def refuse(name: str) -> None:
        raise ValueError(f"{name} in a record")

    return json.loads(text, parse_constant=refuse)


def records(out: bytes) -> list[dict]:
    return [strict_json(line) for line in out.decode("utf-8").splitlines()]


def deep_problem(tmp_path: Path, depth: int = 350) -> Path:
    path = tmp_path / "deep.pddl"
    path.write_text(Path(PROB).read_text().replace(
        "(:goal (and (on a b) (on b c)))",
        "(:goal " + "(and " * depth + "(on a b)" + ")" * depth + ")"))
    return path


def batch_file(tmp_path: Path, *lines: object, name: str = "batch.jsonl") -> str:
    path = tmp_path / name
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n"
                            for x in lines), encoding="utf-8", errors="surrogatepass")
    return str(path)


# ----- row 1: deep nesting in single mode --------------------------------------------------
def test_deep_goal_is_a_located_error_exit_2(tmp_path):
    done = veriplan("validate", "--domain", DOM, "--problem", str(deep_problem(tmp_path)),
                    "--plan", str(EXAMPLES / "blocks-plan.txt"))
    err = done.stderr.decode()
    assert done.returncode == 2, err
    assert "Traceback" not in err and "deep.pddl:6:" in err and "nested more than" in err


# ----- row 2: the same problem as one line of a batch ----------------------------------------
@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_deep_line_loses_no_other_record(tmp_path, workers):
    deep = str(deep_problem(tmp_path))
    path = batch_file(tmp_path, item("a"), item("deep", problem=deep), item("c"),
                      item("d", problem=deep), item("e"))
    done = veriplan("validate", "--batch", path, "--workers", workers)
    out = records(done.stdout)
    assert done.returncode == 4 and b"Traceback" not in done.stderr
    assert [r["id"] for r in out] == ["a", "deep", "c", "d", "e"]
    assert [r["valid"] for r in out] == [True, None, True, None, True]
    assert out[1]["error"]["kind"] == "pddl" and out[1]["error"]["line"] == 6


# ----- row 3: a NUL byte in a path ---------------------------------------------------------
def test_a_nul_byte_in_a_path_is_an_item_error(tmp_path):
    lines = [json.dumps(x) for x in (item(1), item(2, domain="a\u0000b"),
                                      {**item(3), "plan": None, "plan_file": "p\u0000"}, item(4))]
    out = [strict_json(t) for _v, t in batch_lines(lines)]
    assert [r["id"] for r in out] == [1, 2, 3, 4]
    assert [r["valid"] for r in out] == [True, None, None, True]
    assert out[1]["error"]["kind"] == "item" and "NUL" in out[1]["error"]["message"]


# ----- row 4: lone surrogates ------------------------------------------------------------------
def test_lone_surrogates_come_out_escaped_from_a_file_and_from_stdin(tmp_path):
    first = json.dumps(item("ID", "(unstack c a)\n(fly X)")).replace('"ID"', '"\\ud800"')
    second = json.dumps(item(2, "", domain="D")).replace('"D"', '"\\ud800.pddl"')
    lines = [first.replace("X)", "\\udfff)"), second, json.dumps(item(3))]
    path = batch_file(tmp_path, *lines)
    for args, stdin in ((("--batch", path), None),
                        (("--batch", "-"), "\n".join(lines).encode())):
        done = veriplan("validate", *args, stdin=stdin)
        out = records(done.stdout)
        assert done.returncode == 4 and done.stderr == b""
        assert [r["id"] for r in out] == ["\ud800", 2, 3]
        assert out[0]["valid"] is False and out[0]["unread"][0]["text"] == "(fly \udfff)"
        assert out[1]["error"]["kind"] == "item" and out[2]["valid"] is True


# ----- row 5: devices that never end ---------------------------------------------------------
@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_devices_are_refused(tmp_path):
    done = veriplan("validate", "--domain", DOM, "--problem", PROB, "--plan", "/dev/zero",
                    timeout=20)
    assert done.returncode == 2 and b"/dev/zero" in done.stderr
    assert b"not a regular file" in done.stderr and b"Traceback" not in done.stderr
    done = veriplan("validate", "--domain", "/dev/urandom", "--problem", PROB, "--plan",
                    str(EXAMPLES / "blocks-plan.txt"), timeout=20)
    assert done.returncode == 2 and b"not a regular file" in done.stderr
    lines = [json.dumps({"id": i, "domain": DOM, "problem": PROB, "plan_file": dev})
             for i, dev in enumerate(["/dev/zero", "/dev/urandom"])]
    lines.append(json.dumps(item(2, problem="/dev/zero")))
    out = [strict_json(t) for _v, t in batch_lines(lines)]
    assert [r["error"]["kind"] for r in out] == ["not-a-file"] * 3


def test_files_over_the_limit_are_refused(tmp_path):
    big = tmp_path / "big.txt"
    big.write_text(GOOD * 100)
    done = veriplan("validate", "--domain", DOM, "--problem", PROB, "--plan", str(big),
                    "--max-bytes", "1K")
    assert done.returncode == 2 and b"larger than the limit of 1 KiB" in done.stderr
    lines = [json.dumps({**item(1), "plan": None, "plan_file": str(big)}).replace(
        '"plan": null, ', ""), json.dumps(item(2, GOOD * 100)), json.dumps(item(3))]
    out = [strict_json(t) for _v, t in batch_lines(lines, max_bytes=2048)]
    assert [r["error"] and r["error"]["kind"] for r in out] == ["too-large", "too-large", None]
    long_line = batch_file(tmp_path, item(1), item(2, "x" * 5000), item(3))
    done = veriplan("validate", "--batch", long_line, "--max-bytes", "4K")
    out = records(done.stdout)
    assert [r["line"] for r in out] == [1, 2, 3] and out[1]["error"]["kind"] == "too-large"


# ----- row 6: memory for a plan --------------------------------------------------------------
def test_plan_memory_is_under_ten_times_its_size():
    task = load_task(DOM, PROB)
    text = "(pick-up b)\n(put-down b)\n" * 40_000  # 1 MB
    validate_plan(task, parse_plan("(pick-up b)\n", task))  # warm the caches
    tracemalloc.start()
    try:
        result = validate_plan(task, parse_plan(text, task))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.length == 80_000
    assert peak < 10 * len(text), f"{peak / len(text):.1f}x the plan's size"


# ----- row 7: --workers 100000 ---------------------------------------------------------------
def test_workers_are_capped_with_a_message(tmp_path):
    path = batch_file(tmp_path, *(item(i) for i in range(5)))
    done = veriplan("validate", "--batch", path, "--workers", "100000")
    assert done.returncode == 0 and [r["id"] for r in records(done.stdout)] == list(range(5))
    err = done.stderr.decode()
    assert "--workers 100000" in err and "using" in err and "Traceback" not in err
    assert batch.worker_cap() <= batch.MAX_WORKERS


# ----- row 8: a PlanBench config that is not UTF-8 -------------------------------------------
def test_a_config_that_is_not_utf8_is_a_config_error(tmp_path):
    cfg = tmp_path / "cfg.yaml"
    cfg.write_bytes(b"actions:\n  pick-up: 'Pick up \xff\xfe {}'\n")
    done = veriplan("validate", "--domain", DOM, "--problem", PROB, "--plan",
                    str(EXAMPLES / "blocks-plan.txt"), "--planbench-config", str(cfg))
    assert done.returncode == 2 and b"not UTF-8 text" in done.stderr
    assert b"Traceback" not in done.stderr
    [out] = [strict_json(t) for _v, t in batch_lines(
        [json.dumps(item(1, format="planbench", planbench_config=str(cfg)))])]
    assert out["error"]["kind"] == "not-text" and out["error"]["file"] == str(cfg)


# ----- row 9: closed output pipes --------------------------------------------------------------
def closed_pipe(*args: str) -> tuple[int, bytes]:
    proc = subprocess.Popen([sys.executable, "-m", "veriplan.cli", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    proc.stdout.close()  # the reader is gone before the first write
    err = proc.stderr.read()
    proc.stderr.close()
    return proc.wait(timeout=60), err


@pytest.mark.parametrize("command", ["validate", "prompt"])
def test_a_closed_pipe_ends_quietly(command):
    if command == "validate":
        args = ("validate", "--trace", "--domain", DOM, "--problem", PROB, "--plan",
                str(EXAMPLES / "blocks-plan.txt"))
    else:
        args = ("prompt", DOM, PROB, "--planbench-config", CFG)
    code, err = closed_pipe(*args)
    assert err == b"" and code == 141


# ----- row 10: names the PDDL reader accepts ---------------------------------------------------
GREEK = """(define (domain greek) (:requirements :strips)
  (:predicates (at ?x) (seen ?x))
  (:action visit :parameters (?x) :precondition (at ?x) :effect (seen ?x)))"""
GREEK_PROBLEM = """(define (problem g) (:domain greek) (:objects α a.b loc:1 名前)
  (:init (at α) (at a.b) (at loc:1) (at 名前))
  (:goal (and (seen α) (seen a.b) (seen loc:1) (seen 名前))))"""


def test_a_plan_names_objects_the_pddl_reader_accepted():
    from veriplan.pddl.parser import parse_domain, parse_problem

    domain = parse_domain(GREEK)
    task = Task(domain, parse_problem(GREEK_PROBLEM, domain))
    plan = "(visit α)\n(visit A.B)\n(visit loc:1)\n(visit 名前)\n"
    result = validate_plan(task, parse_plan(plan, task))
    assert result.valid, result.feedback()


# ----- row 11: a byte-order mark -------------------------------------------------------------
def test_a_byte_order_mark_is_skipped(tmp_path):
    dom, prob, plan = (tmp_path / n for n in ("d.pddl", "p.pddl", "plan.txt"))
    dom.write_text("\ufeff" + Path(DOM).read_text(), encoding="utf-8")
    prob.write_text("\ufeff" + Path(PROB).read_text(), encoding="utf-8")
    plan.write_text("\ufeff" + GOOD, encoding="utf-8")
    done = veriplan("validate", "--domain", str(dom), "--problem", str(prob),
                    "--plan", str(plan))
    assert done.returncode == 0, done.stdout + done.stderr
    [out] = [strict_json(t) for _v, t in batch_lines([json.dumps(
        {"id": 1, "domain": str(dom), "problem": str(prob), "plan_file": str(plan)})])]
    assert out["valid"] is True


# ----- row 12: the IPC/VAL timed format ------------------------------------------------------
def test_the_ipc_timed_format_is_read_in_order_of_time():
    task = load_task(DOM, PROB)
    steps = [line for line in GOOD.splitlines() if line.strip()]
    timed = [f"{i:.3f}: {s} [1]" for i, s in enumerate(steps)]
    text = "; VAL plan\n" + "\n".join(timed[1:]) + "\n" + timed[0] + "\n; cost = 6 (unit cost)\n"
    parsed = parse_plan(text, task)
    assert not parsed.unread and [str(s) for s in parsed.steps] == steps
    assert validate_plan(task, parsed).valid
    assert validate_plan(task, parse_plan("0.00100: (unstack c a)  [1.000]\n", task)).length == 1


# ----- row 13: exists over an empty type -----------------------------------------------------
def test_exists_over_an_empty_type_is_named_not_an_equality():
    from veriplan.pddl.parser import parse_domain, parse_problem

    domain = parse_domain("""(define (domain keys) (:requirements :adl :typing)
      (:types room key)
      (:predicates (in ?r - room) (fits ?k - key ?r - room))
      (:action enter :parameters (?r - room)
        :precondition (exists (?k - key) (fits ?k ?r)) :effect (in ?r)))""")
    task = Task(domain, parse_problem("""(define (problem p) (:domain keys)
      (:objects hall - room) (:init) (:goal (in hall)))""", domain))
    result = validate_plan(task, ["(enter hall)"])
    assert not result.valid and result.error == "precondition"
    texts = [u.pddl() for u in result.unsatisfied]
    assert texts == ["(exists (?k - key) (fits ?k hall))"]
    assert "(= ...)" not in result.detail and "exists" in result.detail


# ----- row 14: plan and plan_file ------------------------------------------------------------
def test_plan_and_plan_file_together_are_an_item_error():
    [out] = [strict_json(t) for _v, t in batch_lines(
        [json.dumps(item(1, plan_file=str(EXAMPLES / "blocks-bad-plan.txt")))])]
    assert out["valid"] is None and out["error"]["kind"] == "item"
    assert "both 'plan' and 'plan_file'" in out["error"]["message"]


# ----- row 15: a truncated JSON line ---------------------------------------------------------
def test_a_truncated_line_is_located_on_its_own_line():
    text = json.dumps(item(1)).split(' "problem"')[0]  # ends in '"domain": "...",'
    out = [strict_json(t) for _v, t in batch_lines([text + "\n", json.dumps(item(2)) + "\n"])]
    err = out[0]["error"]
    assert err["kind"] == "json" and err["line"] == 1 and err["col"] == len(text) + 1
    assert "line ends there" in err["message"] and out[1]["valid"] is True


# ----- row 16: untrusted batch files -----------------------------------------------------------
def test_a_confined_batch_cannot_leave_its_base_dir(tmp_path):
    base = tmp_path / "base"
    base.mkdir()
    for name in ("blocks-domain.pddl", "blocks-problem.pddl", "blocks-plan.txt"):
        (base / name).write_text((EXAMPLES / name).read_text())
    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRET-TOKEN and more\n")
    (base / "link.pddl").symlink_to(secret)
    rel = {"domain": "blocks-domain.pddl", "problem": "blocks-problem.pddl"}
    lines = [{"id": "ok", **rel, "plan_file": "blocks-plan.txt"},
             {"id": "abs", **rel, "domain": "/etc/shadow", "plan": GOOD},
             {"id": "dots", **rel, "plan_file": "../secret.txt"},
             {"id": "link", **rel, "problem": "link.pddl", "plan": GOOD},
             {"id": "abs-in", **rel, "plan_file": str(base / "blocks-plan.txt")}]
    path = batch_file(tmp_path, *lines)
    done = veriplan("validate", "--batch", path, "--base-dir", str(base), "--confine")
    out = records(done.stdout)
    assert [r["id"] for r in out] == ["ok", "abs", "dots", "link", "abs-in"]
    assert [r["valid"] for r in out] == [True, None, None, None, True]
    assert [r["error"]["kind"] for r in out[1:4]] == ["refused"] * 3
    assert b"TOPSECRET" not in done.stdout + done.stderr
    # Without --confine the batch is trusted, but a file that is not PDDL is named,
    # never quoted.
    lines = [{"id": 1, **rel, "domain": str(secret), "plan": GOOD}]
    done = veriplan("validate", "--batch", batch_file(tmp_path, *lines), "--base-dir",
                    str(base))
    [record] = records(done.stdout)
    assert record["error"]["kind"] == "pddl" and record["error"]["file"] == str(secret)
    assert b"TOPSECRET" not in done.stdout + done.stderr


# ----- a worker that dies ----------------------------------------------------------------------
@pytest.mark.skipif(sys.platform == "win32", reason="forked workers inherit the patch")
def test_a_worker_that_dies_is_replaced_and_its_line_gets_a_record(monkeypatch, tmp_path):
    real, real_quick = batch._Judge._judge, batch._Judge._quick

    def judge(self, it):
        if isinstance(it, dict) and it.get("id") == "die":
            os._exit(9)  # as a worker killed mid-line (out of memory, a signal)
        return real(self, it)

    def quick(self, line, ident, it):  # the one-pass path, taken first
        if ident == "die":
            os._exit(9)
        return real_quick(self, line, ident, it)

    monkeypatch.setattr(batch._Judge, "_judge", judge)
    monkeypatch.setattr(batch._Judge, "_quick", quick)
    other = tmp_path / "other.pddl"
    other.write_text(Path(PROB).read_text())
    lines = [json.dumps(item(i if i % 9 else "die", problem=[PROB, str(other)][i % 2]))
             for i in range(40)]
    out = [strict_json(t) for _v, t in batch_lines(lines, workers=2, window=16)]
    assert [r["line"] for r in out] == list(range(1, 41))
    died = [r for r in out if r["error"]]
    assert [r["line"] for r in died] == [1, 10, 19, 28, 37]
    assert all(r["error"]["kind"] == "internal" and "died" in r["error"]["message"]
               for r in died)
    assert all(r["valid"] is True for r in out if not r["error"])
