"""``veriplan ask`` through a real pseudo-terminal: questions one at a time,
free-text answers, a substitution, an empty answer, and Ctrl-C."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

pexpect = pytest.importorskip("pexpect")

ARGS = ["-m", "veriplan.cli", "ask", "Make a toy car from a wooden table", "--backend",
        "scripted", "--script", "tests.methods.sqbcp.scripts:toy_car", "--no-cache",
        "--config", "embeddings=lexical", "--config", "bidirectional=false"]


def _default_signals() -> None:
    """A person's terminal: SIGINT neither blocked nor ignored (a mask or an
    ignored SIGINT left by whatever ran before in the test process would pass to
    the child through exec)."""
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def spawn():
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return pexpect.spawn(sys.executable, ARGS, cwd=str(REPO), env=env, encoding="utf-8",
                         timeout=30, preexec_fn=_default_signals)


def _signal_state(pid: int) -> str:
    status = Path(f"/proc/{pid}/status").read_text().splitlines()
    return "; ".join(x for x in status if x.startswith(("SigBlk", "SigIgn", "SigCgt")))


def test_a_person_answers_and_gets_an_accepted_plan():
    child = spawn()
    child.expect(r"\? Is it true that you have a budget for a kit")
    child.sendline("no")
    child.expect(r"\? Is it true that you have a saw")
    child.sendline("")  # empty: asked again
    child.expect(r"the answer is empty")
    child.expect(r"\? Is it true that you have a saw")
    child.sendline("yes")
    child.expect(r"\? Is it true that you have wood glue")
    child.sendline("I have tape instead")
    child.expect(r"Accepted plan .*not verified: nothing but your answers grounds it")
    child.expect(r"1\. Cut four wheels from a table leg with a saw")
    child.expect(r"2\. Cut a body from the table top and attach the wheels with tape")
    child.expect(r"It relies on: .*you have a saw")
    child.expect(r"uses tape in place of wood glue")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_i_dont_know_leaves_it_unknown_and_no_plan_is_accepted():
    child = spawn()
    child.expect(r"\? Is it true that you have a budget")
    child.sendline("I don't know")
    child.expect(r"\? Is it true that you have a saw")
    child.sendline("no")
    child.expect(r"No plan accepted")
    child.expect(r"Still unknown: Is it true that you have a budget for a kit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 1


def test_ctrl_c_ends_cleanly_with_what_was_learned():
    child = spawn()
    child.expect(r"\? Is it true that you have a budget")
    child.sendline("no")
    child.expect(r"\? Is it true that you have a saw")
    # readline may take a SIGINT that lands while it sets up the line as its own
    # (a fresh line, no exception; a person presses Ctrl-C again): up to 3 presses
    for _ in range(3):
        child.sendintr()
        if child.expect([r"Stopped\. What I learned so far:", pexpect.TIMEOUT], timeout=10) == 0:
            break
    else:
        raise AssertionError(f"Ctrl-C did not stop the session: {child.before[-300:]!r} "
                             f"({_signal_state(child.pid)})")
    child.expect(r"you have a budget for a kit\? -> no")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
