"""Plans by the thousand: validate_many, batch_lines and ``veriplan validate --batch``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import veriplan.verify.batch as batch
from tests.conftest import EXAMPLES
from veriplan.cli import main
from veriplan.verify import BatchVerdict, validate_many
from veriplan.verify.batch import batch_lines

DOM = str(EXAMPLES / "blocks-domain.pddl")
PROB = str(EXAMPLES / "blocks-problem.pddl")
CFG = str(EXAMPLES / "blocks-planbench.yaml")
GOOD = (EXAMPLES / "blocks-plan.txt").read_text()
BAD = "(unstack c a)\n(pick-up b)\n"


def item(ident: object, plan: str = GOOD, **kw: object) -> dict:
    return {"id": ident, "domain": DOM, "problem": PROB, "plan": plan, **kw}


pytestmark = pytest.mark.usefixtures("fresh_batch_caches")


@pytest.fixture
def problems(tmp_path: Path) -> list[Path]:
    """Two problems of the example domain: the bundled one, and one whose goal the
    bundled plan misses."""
    other = tmp_path / "other.pddl"
    other.write_text(Path(PROB).read_text().replace("(on a b) (on b c)", "(on b a)"))
    return [Path(PROB), other]


def test_verdicts_come_in_order_with_their_fields(problems):
    items = [item("ok"), item("bad", BAD), item("goal", problem=str(problems[1])),
             item("noisy", "(unstack c a)\n(self-destruct now)\n"), item(7, [*GOOD.split("\n")])]
    verdicts = list(validate_many(items))
    assert [v.id for v in verdicts] == ["ok", "bad", "goal", "noisy", 7]
    assert [v.line for v in verdicts] == [1, 2, 3, 4, 5]
    assert [v.valid for v in verdicts] == [True, False, False, False, True]
    assert all(isinstance(v, BatchVerdict) and v.judged for v in verdicts)
    ok, bad, goal, noisy, listed = (v.to_dict() for v in verdicts)
    assert ok["steps"] == 6 and ok["error"] is None and ok["failed_step"] is None
    assert bad["failed_step"] == 2 and bad["failed_action"] == "(pick-up b)"
    assert bad["failure"] == "precondition" and bad["unsatisfied"] == ["(handempty)"]
    assert goal["failed_step"] is None and goal["unmet_goals"] == ["(on b a)"]
    assert noisy["steps"] == 1 and noisy["failure"] == "unread"
    assert [u["line"] for u in noisy["unread"]] == [2]
    assert listed == {**ok, "line": 5, "id": 7}
    json.dumps([ok, bad, goal, noisy])  # JSON-ready


def test_each_problem_is_parsed_once_per_file_identity(problems, parsed):
    calls = parsed
    a, b = (str(p) for p in problems)
    items = [item(i, problem=p) for i, p in enumerate([a, b, a, a, b, a])]
    assert [v.valid for v in validate_many(items)] == [True, False, True, True, False, True]
    assert sorted(calls) == sorted([a, b])
    list(validate_many(items[:2]))  # a second run: still cached
    assert len(calls) == 2
    problems[1].write_text(problems[1].read_text().replace("(on b a)", "(on a b) (on b c)"))
    assert [v.valid for v in validate_many(items[:2])] == [True, True]  # changed: read again
    assert calls.count(b) == 2 and calls.count(a) == 1


def test_a_results_file_of_several_models_parses_each_problem_once(tmp_path, parsed):
    """Results files list one model's answers after another's: a problem recurs as
    many lines later as a model has answers (here 300, beyond the old cache of 128)."""
    text = Path(PROB).read_text()
    paths = []
    for k in range(300):
        p = tmp_path / f"instance-{k}.pddl"
        p.write_text(text)
        paths.append(str(p))
    calls = parsed
    items = [item(f"{m}-{k}", GOOD if m == "a" else BAD, problem=p)
             for m in ("a", "b", "c") for k, p in enumerate(paths)]
    verdicts = [v.valid for v in validate_many(items)]
    assert verdicts == [True] * 300 + [False] * 600
    assert sorted(calls) == sorted(paths)
    assert batch.TASK_CACHE_SIZE >= 300


def test_the_task_cache_size_is_a_setting(monkeypatch):
    monkeypatch.setenv("VERIPLAN_TASK_CACHE", "10")
    assert batch._task_cache_size() == 10
    for bad in ("0", "-3", "many"):
        monkeypatch.setenv("VERIPLAN_TASK_CACHE", bad)
        assert batch._task_cache_size() == 4096


def test_a_task_is_shared_by_items_of_one_problem(problems):
    a, b = (str(p) for p in problems)
    assert batch.cached_task(DOM, a) is batch.cached_task(DOM, a)
    assert batch.cached_task(DOM, a) is not batch.cached_task(DOM, b)


def test_every_error_kind_is_a_record_and_the_run_goes_on(tmp_path):
    broken = tmp_path / "broken.pddl"
    broken.write_text("(define (problem p)\n  (:domain blocks)\n  (:objects a b)\n"
                      "  (:init (handempty)\n    (ontable a) (on a))\n  (:goal (and)))\n")
    typo = tmp_path / "typo.pddl"
    typo.write_text(Path(PROB).read_text().replace("(clear b))", "(clear b) (glue a))"))
    yaml = tmp_path / "bad.yaml"
    yaml.write_text("actions: [unclosed\n")
    lines = [
        json.dumps(item("first")),
        '{"id": "x", "domain": ',  # line 2: not JSON
        json.dumps(item("nodom", domain=str(tmp_path / "none.pddl"))),
        json.dumps(item("noprob", problem=str(tmp_path / "none-p.pddl"))),
        json.dumps({"id": "noplan", "domain": DOM, "problem": PROB,
                    "plan_file": str(tmp_path / "plan.txt")}),
        json.dumps(item("pddl", problem=str(typo))),
        json.dumps(item("syntax", problem=str(broken))),
        "[1, 2]",
        json.dumps({"id": "keys", "domain": DOM, "problem": PROB}),
        json.dumps(item("fmt", format="natural")),
        json.dumps(item("nocfg", format="planbench")),
        json.dumps(item("cfg", format="planbench", planbench_config=str(yaml))),
        json.dumps(item("dir", problem=str(tmp_path))),
        "",  # blank: skipped
        json.dumps(item("last", BAD)),
    ]
    records = [json.loads(text) for _valid, text in batch_lines(lines)]
    by_id = {r["id"]: r for r in records if r["id"] is not None}
    assert [r["line"] for r in records] == [*range(1, 14), 15]
    assert records[0]["valid"] is True and by_id["last"]["valid"] is False
    assert by_id["last"]["line"] == 15 and by_id["last"]["error"] is None
    errors = {r["line"]: r["error"] for r in records if r["error"]}
    assert all(records[i]["valid"] is None for i in range(1, 13))
    assert errors[2]["kind"] == "json" and errors[2]["line"] == 2
    assert "input line 2 is not JSON" in errors[2]["message"] and errors[2]["col"] == 23
    for line, name in ((3, "none.pddl"), (4, "none-p.pddl"), (5, "plan.txt")):
        assert errors[line]["kind"] == "missing-file"
        assert errors[line]["file"] == str(tmp_path / name)
        assert name in errors[line]["message"]
    assert errors[6] == {**errors[6], "kind": "pddl", "file": str(typo), "line": 5}
    assert "glue" in errors[6]["message"]
    assert errors[7]["kind"] == "pddl" and errors[7]["file"] == str(broken)
    assert errors[7]["line"] == 5 and "on" in errors[7]["message"]
    assert errors[8]["kind"] == "item" and "JSON object" in errors[8]["message"]
    assert errors[9]["kind"] == "item" and "'plan'" in errors[9]["message"]
    assert errors[10]["kind"] == "item" and "natural" in errors[10]["message"]
    assert errors[11]["kind"] == "item" and "planbench_config" in errors[11]["message"]
    assert errors[12]["kind"] == "config" and errors[12]["file"] == str(yaml)
    assert errors[13]["kind"] == "missing-file" and "directory" in errors[13]["message"]


def test_planbench_items_and_relative_paths(tmp_path):
    text = (EXAMPLES / "blocks-plan-planbench.txt").read_text()
    rel = {"id": "nl", "domain": "blocks-domain.pddl", "problem": "blocks-problem.pddl",
           "plan_file": "blocks-plan-planbench.txt", "format": "planbench",
           "planbench_config": "blocks-planbench.yaml"}
    [v] = validate_many([rel], base_dir=EXAMPLES)
    assert v.valid is True and v.result.length == 6
    [w] = validate_many([item("nl", text, format="planbench", planbench_config=CFG)])
    assert w.valid is True
    [missing] = validate_many([rel], base_dir=tmp_path)
    assert missing.error.kind == "missing-file"
    assert missing.error.file == str(tmp_path / "blocks-plan-planbench.txt")


def test_workers_give_the_same_output_in_the_same_order(problems):
    a, b = (str(p) for p in problems)
    lines = []
    for i in range(60):
        it = item(i, BAD if i % 7 == 3 else GOOD, problem=[a, b, a][i % 3])
        lines.append(json.dumps(it) if i % 11 != 5 else "{oops")
    one = list(batch_lines(lines))
    two = list(batch_lines(lines, workers=2, window=16))
    assert two == one
    assert [json.loads(t)["line"] for _v, t in two] == list(range(1, 61))
    assert {v for v, _t in one} == {True, False, None}


# ----- the command line ------------------------------------------------------------------
def write(tmp_path: Path, *items: object) -> str:
    path = tmp_path / "batch.jsonl"
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n"
                            for x in items))
    return str(path)


def cli(capsys, *args: str) -> tuple[int, list[dict], str]:
    code = main(["validate", *args])
    out = capsys.readouterr()
    return code, [json.loads(line) for line in out.out.splitlines()], out.err


def test_exit_codes(capsys, tmp_path):
    code, records, err = cli(capsys, "--batch", write(tmp_path, item(1), item(2)))
    assert code == 0 and [r["valid"] for r in records] == [True, True] and err == ""
    code, records, _ = cli(capsys, "--batch", write(tmp_path, item(1), item(2, BAD)))
    assert code == 1 and [r["valid"] for r in records] == [True, False]
    code, records, _ = cli(capsys, "--batch", write(tmp_path, item(1, BAD), "{", item(3)))
    assert code == 4 and [r["valid"] for r in records] == [False, None, True]
    code, records, _ = cli(capsys, "--batch", write(tmp_path, item(1, problem="nope.pddl")))
    assert code == 4 and records[0]["error"]["kind"] == "missing-file"
    code, records, err = cli(capsys, "--batch", str(tmp_path / "absent.jsonl"))
    assert code == 2 and records == [] and "cannot read batch file" in err


@pytest.mark.parametrize("args, message", [
    ((), "needs --domain, --problem, --plan"),
    (("--domain", DOM, "--problem", PROB), "needs --plan"),
    (("--batch", "x.jsonl", "--plan", "p.txt"), "drop --plan"),
    (("--batch", "x.jsonl", "--format", "planbench"), "drop --format"),
    (("--batch", "x.jsonl", "--workers", "0"), "at least 1"),
    (("--domain", DOM, "--problem", PROB, "--plan", "p", "--workers", "2"), "with --batch"),
])
def test_usage_errors_exit_2(capsys, args, message):
    with pytest.raises(SystemExit) as info:
        main(["validate", *args])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "usage: veriplan validate" in err


def test_stdin_workers_and_base_dir_through_a_process(tmp_path):
    rel = {"id": "r", "domain": "blocks-domain.pddl", "problem": "blocks-problem.pddl",
           "plan_file": "blocks-plan.txt"}
    text = "".join(json.dumps(x) + "\n" for x in [item("a"), item("b", BAD), "x", rel])
    text = text.replace('"x"', "not json")
    cmd = [sys.executable, "-m", "veriplan.cli", "validate", "--batch", "-",
           "--base-dir", str(EXAMPLES)]
    env = {**os.environ, "PYTHONPATH": str(Path(batch.__file__).parents[2])}
    one = subprocess.run(cmd, input=text, capture_output=True, text=True, env=env,
                         timeout=60, check=False)
    two = subprocess.run([*cmd, "--workers", "2"], input=text, capture_output=True,
                         text=True, env=env, timeout=60, check=False)
    assert one.returncode == two.returncode == 4
    assert one.stdout == two.stdout and one.stderr == two.stderr == ""  # no bar: not a tty
    records = [json.loads(line) for line in one.stdout.splitlines()]
    assert [(r["id"], r["valid"]) for r in records] == [("a", True), ("b", False), (None, None),
                                                        ("r", True)]
    assert records[2]["error"]["kind"] == "json" and records[2]["line"] == 3


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_progress_bar_only_on_a_terminal(tmp_path):
    import pty

    path = write(tmp_path, *(item(i) for i in range(3)))
    cmd = [sys.executable, "-m", "veriplan.cli", "validate", "--batch", path]
    env = {**os.environ, "PYTHONPATH": str(Path(batch.__file__).parents[2])}
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=follower, env=env,
                              timeout=60, check=False)
        os.close(follower)
        bar = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the other end is closed
                break
            if not chunk:
                break
            bar += chunk
    finally:
        os.close(leader)
    assert done.returncode == 0 and len(done.stdout.splitlines()) == 3
    assert b"3/3" in bar and b"0 not valid" in bar


def test_a_closed_output_stops_the_run_quietly(tmp_path):
    path = write(tmp_path, *(item(i) for i in range(20000)))
    cmd = [sys.executable, "-m", "veriplan.cli", "validate", "--batch", path]
    env = {**os.environ, "PYTHONPATH": str(Path(batch.__file__).parents[2])}
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    first = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 4
    assert json.loads(first)["id"] == 0 and err == b""


def test_records_are_the_json_of_their_verdicts(problems):
    """batch_lines writes a judged item's record itself and reads a common line with
    the JSON scanner alone: the text is json.dumps of the verdict's to_dict, and every
    line reads as json.loads reads it."""
    plans = [GOOD, BAD, "(unstack c a)\n« quoted \"text\" \\ »\n", "(fly a)", "(pick-up a b)",
             "(pick-up zz)", "(unstack c a)\r\n(put-down c)\r\n"]
    ids = ["s", 'q"uote\\ ü', 7, -3, 2.5, None, True, [1, {"a": None}], {"k": "v"}, 10**30]
    lines = []
    for i, ident in enumerate(ids * 2):
        it = item(ident, plans[i % len(plans)], problem=str(problems[i % 2]))
        text = json.dumps(it, ensure_ascii=i % 3 == 0, separators=(",", ":") if i % 2 else None)
        lines.append(["", "  ", "\ufeff"][i % 3] * (i % 5 == 4) + text + ["\n", "", " \n"][i % 3])
    lines += ["{\"id\": 1} x\n", "[1, 2]\n", "\n", "{oops\n", "\"text\"\n", "NaN\n",
              '{"id": Infinity}\n', '{"id": 1e999}\n']
    got = list(batch_lines(lines))
    expected = []
    for n, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:  # strict JSON; a byte-order mark is skipped on any line
            value = json.loads(text.lstrip("\ufeff"), parse_constant=_no_constant,
                               parse_float=_finite)
        except ValueError:
            expected.append((None, "json", n))
            continue
        [v] = validate_many([value])
        v = BatchVerdict(n, v.id, v.result, v.error)
        expected.append((v.valid, json.dumps(v.to_dict(), ensure_ascii=False)))
    assert len(got) == len(expected)
    for (valid, text), want in zip(got, expected):
        if len(want) == 3:  # a line that is not JSON: its record says where
            record = json.loads(text)
            assert (valid, record["error"]["kind"], record["line"]) == want
            assert record["error"]["line"] == want[2]
        else:
            assert (valid, text) == want
    assert {v for v, _t in got} == {True, False, None}


def _no_constant(name: str) -> None:
    raise ValueError(name)


def _finite(text: str) -> float:
    if float(text) in (float("inf"), float("-inf")):
        raise ValueError(text)
    return float(text)


class _Writes:
    """A standard output that counts its writes."""

    def __init__(self) -> None:
        self.writes: list[str] = []

    def write(self, text: str) -> int:
        self.writes.append(text)
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False


def test_records_of_a_file_go_out_in_chunks_and_of_stdin_one_by_one(tmp_path, monkeypatch):
    import io

    lines = [json.dumps(item(i, GOOD if i % 3 else BAD)) + "\n" for i in range(600)]
    path = tmp_path / "batch.jsonl"
    path.write_text("".join(lines))
    for source in (str(path), "-"):
        out = _Writes()
        monkeypatch.setattr(sys, "stdout", out)
        monkeypatch.setattr(sys, "stdin", io.StringIO("".join(lines)))
        assert main(["validate", "--batch", source]) == 1
        records = "".join(out.writes).splitlines()
        assert [json.loads(r)["id"] for r in records] == list(range(600))
        assert len(out.writes) == (3 if source != "-" else 600)
