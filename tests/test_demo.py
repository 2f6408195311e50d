"""`make demo` runs on bundled files only, and the README's first screen shows what
`veriplan solve --method drip` prints for the demo problem when the model answers as
the embedded model did (the decomposition shown in the README, replayed by a script):
a plan in the demo domain's own actions that `veriplan validate` accepts on the same
files (issue 30: the tower moves DRIP plans in are mapped back, never shown as the
plan)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from tests.conftest import REPO
from veriplan.llm.types import LLMRequest

EXAMPLES = REPO / "src" / "veriplan" / "examples"


def _readme_demo_block() -> list[str]:
    text = (REPO / "README.md").read_text()
    block = re.search(r"```text\n(.*?)```", text, flags=re.S)
    assert block, "the README's first screen has the demo's output"
    return block.group(1).splitlines()


def recorded_model(request: LLMRequest) -> str:
    """The decomposition the embedded model gave for the demo goal (README), one
    action a line; any other goal gets no decomposition."""
    lines = _readme_demo_block()
    arrow = next(i for i, line in enumerate(lines) if line.startswith("-> "))
    goal = " ".join(lines[:arrow]).removeprefix("decompose ")
    if goal.split(".")[0] not in request.messages[-1].content:
        return ""
    return "\n".join(a.strip() for a in lines[arrow][3:].split(","))


def test_the_demo_uses_bundled_files_only():
    make = (REPO / "Makefile").read_text()
    demo = make[make.index("\ndemo:"):make.index("\ntest:")]
    names = set(re.findall(r"\$\(EX\)/([\w.-]+)", demo))
    assert "blocks6-problem.pddl" in names
    assert all((EXAMPLES / n).is_file() for n in names), names
    assert "../shared" not in demo


def test_readme_first_screen_is_what_drip_prints_for_the_demo_problem():
    out = subprocess.run(
        [sys.executable, "-m", "veriplan.cli", "solve", "--method", "drip", "--no-cache",
         "--backend", "scripted", "--script", "tests.test_demo:recorded_model",
         "--domain", str(EXAMPLES / "blocks-domain.pddl"),
         "--problem", str(EXAMPLES / "blocks6-problem.pddl")],
        capture_output=True, text=True, cwd=REPO, env={**os.environ, "COLUMNS": "80"},
        timeout=120, check=False)
    assert out.returncode == 0, out.stdout + out.stderr
    printed = " ".join(out.stdout.split())
    readme = _readme_demo_block()
    start = readme.index(next(line for line in readme if line.startswith("plan verified")))
    end = next(i for i, line in enumerate(readme) if "attempt(s)" in line)
    # the result as the README shows it (line breaks aside): verdict, plan, who did what
    assert " ".join(" ".join(readme[start:end]).split()) in printed
    for line in readme:
        if line.startswith("execute "):
            assert line in out.stdout


def test_the_plan_on_the_first_screen_passes_veriplan_validate(tmp_path, capsys):
    from veriplan.cli import main

    readme = _readme_demo_block()
    start = next(i for i, line in enumerate(readme) if line.startswith("plan verified"))
    assert "on your PDDL domain and problem" in readme[start]
    plan = [line.strip() for line in readme[start:] if line.startswith("  (")]
    assert plan and all(s.split()[0] in ("(pick-up", "(put-down", "(stack", "(unstack")
                        for s in plan)
    (tmp_path / "plan.txt").write_text("\n".join(plan) + "\n")
    code = main(["validate", "--domain", str(EXAMPLES / "blocks-domain.pddl"),
                 "--problem", str(EXAMPLES / "blocks6-problem.pddl"),
                 "--plan", str(tmp_path / "plan.txt")])
    assert code == 0, capsys.readouterr().out
