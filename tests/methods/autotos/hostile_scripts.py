"""A scripted model that answers one of its two functions with an attack from
``tests/sandbox/hostile.py`` (named by ``VERIPLAN_TEST_ATTACK``; the folder it
aims at by ``VERIPLAN_TEST_OUT``) and the other with the reference code."""

from __future__ import annotations

import os

from tests.methods.autotos.scripts import reference_answers
from tests.sandbox import hostile

# what the hostile goal test returns after its attack
RETURNS = {"READ_ENVIRON": "False", "READ_FILE": "False"}


def answers(request) -> str:
    first = request.messages[1].content
    which = "goal" if "goal(" in first and "succ(" not in first else "succ"
    attack = os.environ.get("VERIPLAN_TEST_ATTACK", "")
    if which != "goal" or not attack:
        return reference_answers(request)
    body = getattr(hostile, attack)
    code = hostile.function("goal", body, RETURNS.get(attack, "False"),
                            out=os.environ.get("VERIPLAN_TEST_OUT", "/nonexistent"),
                            mark="x") if "{out" in body else \
        hostile.function("goal", body, RETURNS.get(attack, "False"))
    return "```python\n" + code + "```"
