"""ST, symbol translator: text plan -> symbol plan. A line maps by name when it
names an action; otherwise by structural signature, when exactly one action
takes that many arguments of those types. Every line that maps neither way is
reported."""

from __future__ import annotations

import re

from veriplan.core.plan import Step
from veriplan.methods.closed_loop.contracts import SymbolPlan, TextPlan
from veriplan.pddl.task import Task
from veriplan.planio import PlanBenchConfig, read_planbench_plan
from veriplan.planio.parsed import UnreadLine, plan_lines

_TOKEN = re.compile(r"[a-z0-9_\-]+")


def translate(text: TextPlan, task: Task, planbench: PlanBenchConfig | None = None
              ) -> SymbolPlan:
    lines, _ = plan_lines(text.text)
    schemas = task.schemas
    steps: list[Step] = []
    unmapped: list[UnreadLine] = []
    by_structure: list[int] = []
    for n, line in lines:
        low = line.lower()
        groups = re.findall(r"\(([^()]*)\)", low)
        chunks = groups if groups else [low]
        for chunk in chunks:
            words = _TOKEN.findall(chunk)
            if not words:
                continue
            head, rest = words[0], words[1:]
            args = tuple(w for w in rest if w in task.objects)
            if head in schemas and len(args) == len(schemas[head].params):
                steps.append(Step(head, args, n))
                continue
            match = _by_signature(task, args, head) if args else None
            if match is not None:
                steps.append(Step(match, args, n))
                by_structure.append(n)
                continue
            nl = read_planbench_plan(chunk, planbench, list(task.objects)) if planbench else None
            # A natural-language reading that names objects by their own names must use
            # every object the line names: "(attack a b)" is attack with two arguments,
            # not "attack [article] b". (Objects named through the config's encodings,
            # "the red block", leave a stray "a" an article.)
            if (nl is not None and len(nl.steps) == 1 and not nl.unread
                    and (not set(nl.steps[0].args) & set(words)
                         or sorted(nl.steps[0].args) == sorted(args))):
                steps.append(Step(nl.steps[0].name, nl.steps[0].args, n))
                continue
            reason = (f"{head} is not an action" if head not in schemas else
                      f"{head} takes {len(schemas[head].params)} object(s), "
                      f"{len(args)} named")
            unmapped.append(UnreadLine(n, line, reason))
    return SymbolPlan(tuple(steps), tuple(unmapped), tuple(by_structure))


def _by_signature(task: Task, args: tuple[str, ...], head: str) -> str | None:
    """The one action whose arity and parameter types fit ``args``, if only one."""
    if head in task.schemas:
        return None  # a known action with the wrong arity is not re-mapped
    fits = [name for name, s in task.schemas.items()
            if len(s.params) == len(args)
            and all(task.has_type(a, p.type) for a, p in zip(args, s.params))]
    return fits[0] if len(fits) == 1 else None
