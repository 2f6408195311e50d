"""Scripted answers for AutoToS runs through the CLI and the harness: the
reference components, as a model that gets everything right at once."""

from __future__ import annotations

from veriplan.domains.autotos import get_domain


def reference_answers(request) -> str:
    first = request.messages[1].content
    domain = "blocksworld" if "Blocksworld" in first else "24game"
    which = "goal" if "goal(" in first and "succ(" not in first else "succ"
    return "```python\n" + get_domain(domain).reference_code(which) + "```"
