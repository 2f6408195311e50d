"""Misbehaving generated successor functions, through the AutoToS harness:
each ends as one of the paper's categories, fed back to the model, and
veriplan carries on."""

from __future__ import annotations

import pytest

from veriplan.domains.autotos import get_domain
from veriplan.methods.autotos import Config
from veriplan.methods.autotos.method import check

DOMAIN = get_domain("24game")
GOAL = DOMAIN.reference_code("goal")
EXAMPLES = [{"id": "u", "init": [1, 1, 4, 6], "meta": {}}]


def soundness(succ_body: str) -> dict:
    code = "def succ(state):\n" + "".join(f"    {line}\n" for line in succ_body.splitlines())
    out = check(DOMAIN, "soundness", code, GOAL, Config(search_limit=5),
                instances=EXAMPLES)
    return out["failure"]


@pytest.mark.parametrize("body, category, words", [
    ("while True:\n    pass", "succ_too_slow", "longer than 1 s"),
    ("x = bytearray(10**11)", "succ_exception", "MemoryError"),
    ("import os\nwhile True:\n    os.fork()", "succ_exception", "forking a process"),
    ("return succ(state)", "succ_exception", "RecursionError"),
    ("open('/tmp/veriplan-escape.txt', 'w').write('x')\nreturn []", "succ_exception",
     "outside the scratch directory"),
    ("import socket\nsocket.create_connection(('127.0.0.1', 80))\nreturn []",
     "succ_exception", "network"),
    ("import sys\nsys.exit(0)", "succ_exception", "SystemExit"),
    ("return [lambda: 1]", "succ_soundness", "successor"),
])
def test_generated_code_misbehaving(body, category, words):
    failure = soundness(body)
    assert failure["category"] == category
    assert words in failure["message"]


def test_secrets_and_prints_do_not_escape(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret")
    body = ("import os\nprint('x' * 10**7)\n"
            "if os.environ.get('ANTHROPIC_API_KEY'):\n    raise ValueError('key seen')\n"
            "return []")
    assert soundness(body) is None  # no key inside; the print went nowhere
