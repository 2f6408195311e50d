"""A scripted model for ``veriplan ask`` tests: the toy car of the paper's
appendix example, in our own words."""

from __future__ import annotations

import json


def _h(action, pre, *, goal=False, facts=(), made=None, structure=None):
    return {"action": action,
            "preconditions": [{"text": t, "subject": s, "label": "UNK"} for t, s in pre],
            "effects": {"resources": made or {}, "facts_true": list(facts),
                        "completes_goal": goal, "structure": structure or action,
                        "seconds": 600}}


def toy_car(request) -> str:
    prompt = request.messages[-1].content
    if "preparatory step" in prompt or "Working backwards" in prompt:
        return json.dumps({"hypotheses": []})
    if "Steps already planned:\n(none yet)" in prompt:
        return json.dumps({"hypotheses": [
            _h("Buy a toy car kit at the store", [("you have a budget for a kit", "budget")],
               goal=True, structure="a toy car"),
            _h("Cut four wheels from a table leg with a saw",
               [("you have a saw", "saw")], facts=["wheels are cut"], made={"wheels": 4}),
        ]})
    return json.dumps({"hypotheses": [
        _h("Cut a body from the table top and attach the wheels with glue",
           [("wheels are cut", "wheels"), ("you have wood glue", "wood glue")],
           goal=True, made={"toy car": 1, "wheels": -4},
           structure="a toy car from a wooden table"),
    ]})


def cautious(request) -> str:
    """Proposes nothing for SQ-BCP; baselines get a plan that names nothing."""
    if request.schema is not None:
        return json.dumps({"hypotheses": []})
    return "Plan:\n1. Think about it.\n2. Serve it."
