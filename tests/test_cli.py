"""The command line: exit codes, JSON output and error messages."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import EXAMPLES
from veriplan.cli import main

DOM = str(EXAMPLES / "blocks-domain.pddl")
PROB = str(EXAMPLES / "blocks-problem.pddl")
CFG = str(EXAMPLES / "blocks-planbench.yaml")


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_validate_exit_codes(capsys):
    code, out, _ = run(capsys, "validate", "--domain", DOM, "--problem", PROB,
                       "--plan", str(EXAMPLES / "blocks-plan.txt"))
    assert code == 0 and out.startswith("valid:")
    code, out, _ = run(capsys, "validate", "--domain", DOM, "--problem", PROB,
                       "--plan", str(EXAMPLES / "blocks-bad-plan.txt"))
    assert code == 1 and "step 2 (pick-up b): precondition (handempty) is false" in out


def test_validate_json(capsys):
    code, out, _ = run(capsys, "validate", "--domain", DOM, "--problem", PROB, "--json",
                       "--plan", str(EXAMPLES / "blocks-bad-plan.txt"))
    data = json.loads(out)
    assert code == 1 and data["valid"] is False and data["failed_step"] == 2
    assert data["unsatisfied"] == ["(handempty)"] and data["unread_lines"] == []


def test_validate_planbench_format(capsys):
    code, out, _ = run(capsys, "validate", "--domain", DOM, "--problem", PROB,
                       "--plan", str(EXAMPLES / "blocks-plan-planbench.txt"),
                       "--format", "planbench", "--planbench-config", CFG)
    assert code == 0, out
    code, _, err = run(capsys, "validate", "--domain", DOM, "--problem", PROB,
                       "--plan", str(EXAMPLES / "blocks-plan-planbench.txt"),
                       "--format", "planbench")
    assert code == 2 and "--planbench-config" in err


def test_unread_lines_make_a_plan_invalid(capsys, tmp_path):
    plan = tmp_path / "p.txt"
    plan.write_text((EXAMPLES / "blocks-plan.txt").read_text() + "and then celebrate\n")
    code, out, _ = run(capsys, "validate", "--domain", DOM, "--problem", PROB, "--plan", str(plan))
    assert code == 1 and "unread: line 7" in out and "could not be read" in out


def test_usage_and_parse_errors_exit_2(capsys, tmp_path):
    code, _, err = run(capsys, "validate", "--domain", DOM, "--problem", "missing.pddl",
                       "--plan", "x")
    assert code == 2 and "missing.pddl: cannot read PDDL file" in err
    broken = tmp_path / "d.pddl"
    broken.write_text("(define (domain x)\n  (:requirements :object-fluents))")
    code, _, err = run(capsys, "validate", "--domain", str(broken), "--problem", PROB,
                       "--plan", "x")
    assert code == 2 and f"{broken}:2:18: requirement :object-fluents is not supported" in err
    with pytest.raises(SystemExit) as info:
        main(["validate"])
    assert info.value.code == 2


def test_solve_classical(capsys):
    code, out, _ = run(capsys, "solve-classical", DOM, PROB, "--planner", "bfs")
    assert code == 0 and "verified by veriplan's validator" in out
    code, out, _ = run(capsys, "solve-classical", DOM, PROB, "--json")
    data = json.loads(out)
    assert code == 0 and data["solved"] and data["planner"] == "fd"


def test_obfuscate_then_validate_renamed_plan(capsys, tmp_path):
    code, _, _ = run(capsys, "obfuscate", DOM, PROB, "--seed", "3", "--out", str(tmp_path))
    assert code == 0
    renaming = json.loads((tmp_path / "renaming.json").read_text())
    from veriplan import Renaming, Step
    r = Renaming.from_dict(renaming)
    plan = [Step.parse(s) for s in (EXAMPLES / "blocks-plan.txt").read_text().splitlines()]
    (tmp_path / "plan.txt").write_text("\n".join(str(s) for s in r.plan(plan)))
    code, out, _ = run(capsys, "validate", "--domain", str(tmp_path / "domain.pddl"),
                       "--problem", str(tmp_path / "problem.pddl"),
                       "--plan", str(tmp_path / "plan.txt"))
    assert code == 0, out


def test_prompt(capsys):
    code, out, _ = run(capsys, "prompt", DOM, PROB, "--planbench-config", CFG,
                       "--example-problem", PROB)
    assert code == 0 and out.count("[STATEMENT]") == 2 and "[PLAN END]" in out
    assert "the orange block is on top of the red block" in out


def test_console_script_runs():
    proc = subprocess.run([sys.executable, "-m", "veriplan.cli", "--version"],
                          capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.startswith("veriplan ")


def test_help_lists_every_command(capsys):
    import veriplan.cli

    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    out = capsys.readouterr().out
    assert exc.value.code == 0
    assert len(veriplan.cli.COMMANDS) >= 15 and "export-inspect" in veriplan.cli.COMMANDS
    for name in veriplan.cli.COMMANDS:
        assert f"    {name} " in out or f"    {name}\n" in out, name


def test_validate_imports_only_what_it_needs(tmp_path):
    """``veriplan validate`` builds its parser alone: the other commands' modules (and
    the planners, the AEC code and the YAML reader they import) stay unloaded."""
    (tmp_path / "empty.jsonl").write_text("")
    code = ("import sys\nfrom veriplan.cli import main\n"
            f"code = main(['validate', '--batch', {str(tmp_path / 'empty.jsonl')!r}])\n"
            "print(code, ' '.join(sorted(sys.modules)))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    code, modules = proc.stdout.split(" ", 1)
    assert code == "0", proc.stderr
    loaded = set(modules.split())
    assert "veriplan.verify.batch" in loaded
    assert not {m for m in loaded if m.startswith(("veriplan.planners", "veriplan.methods",
                                                   "veriplan.cli.aec", "yaml"))}
    assert not loaded & {"veriplan.cli.llm_commands", "veriplan.planio.planbench"}
