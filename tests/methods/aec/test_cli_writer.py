"""`veriplan aec` writes its text through the writer it is given (the command
line's standard output by default): every line, the progress lines flushed, and
nothing printed past it."""

from __future__ import annotations

import argparse

from tests.methods.aec.test_cli import SCRIPT
from veriplan.cli.core import EXIT_OK
from veriplan.methods.aec import commands as aec_commands


class Lines:
    """A writer that keeps what it is given."""

    def __init__(self) -> None:
        self.lines: list[tuple[str, bool]] = []

    def __call__(self, text: str = "", /, *, flush: bool = False) -> None:
        self.lines.append((text, flush))


def _args(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="veriplan")
    aec_commands.add_parsers(ap.add_subparsers(dest="command", required=True))
    return ap.parse_args(argv)


def test_run_writes_through_the_writer_given(capsys):
    out = Lines()
    args = _args(["aec", "run", "--env", "fakekitchen", "--task", "hot_apple/fridge", *SCRIPT])
    assert aec_commands.COMMANDS["aec"](args, out) == EXIT_OK
    assert capsys.readouterr().out == ""
    *progress, (outcome, flushed) = out.lines
    assert outcome.startswith("won (the task done, verified by the environment's simulator)")
    assert not flushed  # the outcome, once at the end
    # the decisions as they happen, each flushed at once
    assert progress and all(f for _, f in progress)
    assert any(t.split()[0] == "simulate" for t, _ in progress)


def test_by_default_the_text_goes_to_standard_output(capsys):
    args = _args(["aec", "run", "--env", "fakekitchen", "--task", "hot_apple/fridge", *SCRIPT])
    out = Lines()
    assert aec_commands.COMMANDS["aec"](args, out) == EXIT_OK
    written = "".join(t + "\n" for t, _ in out.lines)
    assert aec_commands.COMMANDS["aec"](args) == EXIT_OK
    printed = capsys.readouterr().out
    # the same lines, byte for byte but for the run's own time
    assert printed.rsplit(", ", 1)[0] == written.rsplit(", ", 1)[0] and printed != ""
