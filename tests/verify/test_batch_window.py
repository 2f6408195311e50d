"""``validate --batch`` in any line order (issue 36): over a window of lines, the one
process looks at each domain and problem file once (one ``stat``), so a shuffled
results file costs about what one sorted by problem does; the records are the same
in every order and every window, and a file changed during the run is read again
from the next window on."""

from __future__ import annotations

import io
import json
import os
import random
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

import veriplan.cli as cli
import veriplan.verify.batch as batch
from tests.conftest import EXAMPLES
from veriplan.cli import main
from veriplan.verify.batch import batch_lines

DOMAIN = (EXAMPLES / "blocks-domain.pddl").read_text()
PROBLEM = (EXAMPLES / "blocks-problem.pddl").read_text()
GOOD = (EXAMPLES / "blocks-plan.txt").read_text()
PLANS = [GOOD, "(unstack c a)\n(pick-up b)\n", "(unstack c a)\n(put-down c)",
         "(unstack c a)\n(stack c a)\n", "", "(unstack c a)\n(fly c)\n"]

pytestmark = pytest.mark.usefixtures("fresh_batch_caches")


def _write(path: Path, text: str, age: float = 60) -> None:
    """``text`` into ``path``, last written ``age`` seconds ago (past the racy
    window, in which a file is also compared by its text at every line)."""
    path.write_text(text)
    then = time.time() - age
    os.utime(path, (then, then))


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], list[str]]:
    """Two domain files and eight problems (four of each), old enough to be kept."""
    root = tmp_path_factory.mktemp("window")
    domains, problems = [], []
    for d in range(2):
        dom = root / f"domain-{d}.pddl"
        _write(dom, DOMAIN)
        domains.append(str(dom))
    for k in range(8):
        prob = root / f"instance-{k}.pddl"
        # each problem its own goal: the same plans get other verdicts
        goal = ("(on a b) (on b c)", "(on b a)", "(on c b)", "(clear a)")[k % 4]
        _write(prob, PROBLEM.replace("(on a b) (on b c)", goal))
        problems.append(str(prob))
    return domains, problems


def _lines(files: tuple[list[str], list[str]], copies: int = 6) -> list[str]:
    """A results file of several "models": every problem's answers, model by model
    (a problem recurs 8 lines later), and a few lines that are not plain ones."""
    domains, problems = files
    rows = [{"id": f"{m}-{k}", "domain": domains[k % 2], "problem": p,
             "plan": PLANS[(m + k) % len(PLANS)]}
            for m in range(copies) for k, p in enumerate(problems)]
    rows[5]["plan"] = "Plan:\n1. (unstack c a)\n(self-destruct)"  # the general reader
    rows[9] = {"id": "file", "domain": domains[1], "problem": problems[1],
               "plan_file": str(EXAMPLES / "blocks-plan.txt")}
    rows[17] = {"id": "missing", "domain": domains[0], "problem": problems[0] + ".gone",
                "plan": GOOD}
    lines = [json.dumps(r) + "\n" for r in rows]
    lines[23] = "{not json\n"
    lines[30] = "\n"
    return lines


def _orders(lines: list[str]) -> dict[str, list[int]]:
    def key(i: int) -> tuple:
        try:
            row = json.loads(lines[i])
        except ValueError:
            return ("", "")
        return (row.get("domain", ""), row.get("problem", "")) if row else ("", "")

    shuffled = list(range(len(lines)))
    random.Random(7).shuffle(shuffled)
    return {"file": list(range(len(lines))), "sorted": sorted(range(len(lines)), key=key),
            "shuffled": shuffled}


def _by_id(records: list[str], order: list[int]) -> dict[int, dict]:
    """Records by their line's index in the file order, without the line number."""
    out = {}
    for text in records:
        rec = json.loads(text)
        if rec["error"] and rec["error"]["kind"] == "json":  # its message names the line
            rec["error"] = "json"
        out[order[rec.pop("line") - 1]] = rec
    return out


@pytest.fixture
def stats(monkeypatch: pytest.MonkeyPatch) -> Counter:
    """How often each path is looked at (``os.stat``) while the test runs."""
    seen: Counter = Counter()
    real = os.stat

    def counting(path, *args, **kw):
        seen[os.fspath(path) if isinstance(path, (str, os.PathLike)) else path] += 1
        return real(path, *args, **kw)

    monkeypatch.setattr(os, "stat", counting)
    return seen


def test_a_shuffled_file_looks_at_each_file_once_a_window(files, stats, parsed):
    domains, problems = files
    lines = _lines(files)
    orders = _orders(lines)
    in_order = [lines[i] for i in orders["sorted"]]
    list(batch_lines(in_order))  # line by line, sorted by domain and problem
    looked_sorted = {f: stats[f] for f in domains + problems}
    assert {p: stats[p] for p in problems} == dict.fromkeys(problems, 1)
    batch.clear_caches()
    stats.clear()
    parsed.clear()
    shuffled = [lines[i] for i in orders["shuffled"]]
    records = list(batch_lines(shuffled, window=len(lines)))
    assert len(records) == len(lines) - 1  # the blank line has none
    # every problem parsed once, and every file looked at as often as in the sorted
    # file, though the lines of each are scattered
    assert sorted(parsed) == sorted(problems)
    assert {f: stats[f] for f in domains + problems} == looked_sorted
    assert stats[problems[0] + ".gone"] == 1  # the one line naming it


def test_windows_of_a_few_lines_look_at_a_file_once_each(files, stats):
    _domains, problems = files
    lines = [ln for ln in _lines(files, copies=4) if ln.startswith('{"id": "')]
    lines = [ln for ln in lines if '"missing"' not in ln and '"file"' not in ln]
    shuffled = [lines[i] for i in _orders(lines)["shuffled"]]
    window = 5
    list(batch_lines(shuffled, window=window))
    # at most once a window for each problem, at least once in a window that names it
    windows = [shuffled[i:i + window] for i in range(0, len(shuffled), window)]
    for p in problems:
        named = sum(1 for w in windows if any(json.dumps(p) in ln for ln in w))
        assert stats[p] == named, p


def test_line_by_line_looks_again_whenever_the_problem_changes(files, stats):
    """The default of batch_lines (and of standard input): as before this change."""
    _domains, problems = files
    lines = _lines(files)
    shuffled = [lines[i] for i in _orders(lines)["shuffled"]]
    list(batch_lines(shuffled))
    assert sum(stats[p] for p in problems) > 2 * len(problems)


@pytest.mark.parametrize("workers", [1, 2])
def test_the_records_are_the_same_in_every_order_and_window(files, workers):
    lines = _lines(files)
    orders = _orders(lines)
    expected = None
    for name, order in orders.items():
        text = [lines[i] for i in order]
        line_by_line = [t for _v, t in batch_lines(text)]
        for window in (1, 2, 3, 7, 16, 1000):
            got = [t for _v, t in batch_lines(text, window=window, workers=workers)]
            assert got == line_by_line, (name, window)  # byte for byte, in input order
        by_id = _by_id(line_by_line, order)
        if expected is None:
            expected = by_id
        assert by_id == expected, name


def test_a_file_changed_during_the_run_is_read_again_from_the_next_window(tmp_path):
    dom, prob = tmp_path / "d.pddl", tmp_path / "p.pddl"
    other = tmp_path / "q.pddl"
    _write(dom, DOMAIN)
    _write(prob, PROBLEM)
    _write(other, PROBLEM)
    # put-down then also needs the block on the table: step 2 cannot be executed
    changed = DOMAIN.replace(":precondition (holding ?b)",
                             ":precondition (and (holding ?b) (ontable ?b))", 1)
    assert changed != DOMAIN
    plan = "(unstack c a)\n(put-down c)"

    def lines() -> Iterator[str]:
        for n in range(9):
            if n == 4:  # after the fourth line: the domain and the goal change
                _write(dom, changed, 30)
                _write(prob, PROBLEM.replace("(on a b) (on b c)", "(on c a)"), 30)
            p = prob if n % 2 == 0 else other
            yield json.dumps({"id": n, "domain": str(dom), "problem": str(p),
                              "plan": plan}) + "\n"

    records = [json.loads(t) for _v, t in batch_lines(lines(), window=4)]
    assert [r["id"] for r in records] == list(range(9))
    # lines 1-4: the first window, as the files were; from line 5 on, as they are
    assert [r["failed_step"] for r in records] == [None] * 4 + [2] * 5
    assert [r["unmet_goals"] for r in records[:4]] == [["(on a b)", "(on b c)"]] * 4


def test_a_file_run_takes_windows_and_standard_input_goes_line_by_line(
        files, tmp_path, stats, monkeypatch):
    _domains, problems = files
    lines = _lines(files)
    shuffled = "".join(lines[i] for i in _orders(lines)["shuffled"])
    path = tmp_path / "shuffled.jsonl"
    path.write_text(shuffled)
    outputs = []
    for argv, stdin in ((["--batch", str(path)], ""), (["--batch", "-"], shuffled),
                        (["--batch", str(path), "--window", "1"], ""),
                        (["--batch", "-", "--window", "1000"], shuffled)):
        stats.clear()
        out = io.StringIO()
        monkeypatch.setattr(sys, "stdout", out)
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        assert main(["validate", *argv]) == 4  # the missing file and the JSON error
        outputs.append(out.getvalue())
        looked = sum(stats[p] for p in problems)
        once = argv[-1] in (str(path), "1000")
        assert (looked == len(problems)) == once, argv
    assert len(set(outputs)) == 1


def test_window_on_the_command_line(capsys, tmp_path):
    argv = ["validate", "--batch", "b.jsonl", "--window", "50", "--workers", "2"]
    fast = cli._batch_args(argv)
    slow = cli._parser(only_validate=True).parse_args(argv)
    assert fast is not None and fast.window == slow.window == 50
    assert {**vars(fast), "usage_error": None} == {**vars(slow), "usage_error": None}
    path = tmp_path / "b.jsonl"
    path.write_text("")
    for bad, message in ((["--batch", str(path), "--window", "0"],
                          "--window must be at least 1 line, not 0"),
                         (["--domain", "d", "--problem", "p", "--plan", "x", "--window", "5"],
                          "--window goes with --batch FILE.jsonl only")):
        with pytest.raises(SystemExit) as exc:
            main(["validate", *bad])
        assert exc.value.code == 2
        assert capsys.readouterr().err.rstrip().endswith(message)
    with pytest.raises(ValueError, match="window must be at least 1"):
        list(batch_lines([], window=0))


def test_a_confined_run_gives_the_same_records_in_every_window(files, tmp_path):
    """Confined, where a path leads is looked up for each line: windows only share
    the files' look-ups, and a line naming a file outside is refused in every one."""
    domains, _problems = files
    root = str(Path(domains[0]).parent)
    lines = _lines(files)
    outside = json.dumps({"id": "outside", "domain": domains[0],
                          "problem": str(tmp_path / "elsewhere.pddl"), "plan": GOOD})
    lines = [*lines[:12], outside + "\n", *lines[12:]]
    shuffled = [lines[i] for i in _orders(lines)["shuffled"]]
    line_by_line = [t for _v, t in batch_lines(shuffled, base_dir=root, confine=True)]
    kinds = Counter((json.loads(t)["error"] or {}).get("kind") for t in line_by_line)
    assert kinds["refused"] == 2  # the plan file among the examples, and the outsider
    for window in (2, 5, 1000):
        got = [t for _v, t in batch_lines(shuffled, base_dir=root, confine=True,
                                          window=window)]
        assert got == line_by_line, window


def test_a_problem_written_just_now_is_compared_by_its_text_in_a_window(tmp_path):
    """A file written in the last 2 seconds is looked at (and compared by its text)
    whenever a line names it after another, in a window too: here it is rewritten
    with the same size and modification time, which only its text tells."""
    dom, prob, other = tmp_path / "d.pddl", tmp_path / "p.pddl", tmp_path / "q.pddl"
    _write(dom, DOMAIN)
    prob.write_text(PROBLEM)
    _write(other, PROBLEM)
    before = os.stat(prob)
    swapped = PROBLEM.replace("(on a b) (on b c)", "(on b a) (on c b)")
    assert len(swapped) == len(PROBLEM)

    def lines() -> Iterator[str]:
        for n in range(4):
            if n == 2:
                prob.write_text(swapped)
                os.utime(prob, ns=(before.st_atime_ns, before.st_mtime_ns))
            p = prob if n % 2 == 0 else other
            yield json.dumps({"id": n, "domain": str(dom), "problem": str(p),
                              "plan": GOOD}) + "\n"

    records = [json.loads(t) for _v, t in batch_lines(lines(), window=100)]
    assert [r["valid"] for r in records] == [True, True, False, True]
    assert records[2]["unmet_goals"] == ["(on b a)", "(on c b)"]
