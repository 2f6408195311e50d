"""``veriplan solve`` plans for PDDL tasks only; for a method of another kind
it names the commands that run it, and every command it names is one the
command line takes (parsed by the CLI's own argparse, placeholders filled in
as written)."""

from __future__ import annotations

import re
import shlex

import pytest

from tests.conftest import EXAMPLES
from veriplan.cli import _commands, _parser, command_path, main
from veriplan.cli.core import EXIT_USAGE
from veriplan.methods import available_methods, get_method

NOT_PDDL = [m for m in available_methods() if get_method(m).problem != "pddl"]


def _suggested(capsys, method: str) -> list[str]:
    code = main(["solve", "--method", method, "--domain", str(EXAMPLES / "blocks-domain.pddl"),
                 "--problem", str(EXAMPLES / "blocks-problem.pddl")])
    err = capsys.readouterr().err
    assert code == EXIT_USAGE, err
    return re.findall(r"`veriplan ([^`]+)`", err)


def test_there_are_methods_of_other_kinds():
    assert {"aec", "sqbcp", "autotos"} <= set(NOT_PDDL)


@pytest.mark.parametrize("method", NOT_PDDL)
def test_every_command_solve_suggests_parses(capsys, method):
    suggested = _suggested(capsys, method)
    assert suggested, f"solve --method {method} names no command"
    parser, handlers = _parser(), _commands()
    for command in suggested:
        argv = shlex.split(command)
        try:
            args = parser.parse_args(argv)
        except SystemExit:
            pytest.fail(f"solve --method {method} suggests `veriplan {command}`, "
                        f"which the command line refuses: {capsys.readouterr().err}")
        assert args.command in handlers, command_path(args)
        # the command runs this method, not another (ask and autotos run run one method)
        assert getattr(args, "method", method) == method, command


def test_one_problem_commands_come_before_the_harness(capsys):
    assert [c.split()[:2] for c in _suggested(capsys, "aec")] == [["aec", "run"],
                                                                  ["bench", "aec"]]
