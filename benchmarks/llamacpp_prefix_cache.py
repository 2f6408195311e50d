"""The embedded model re-reads less: recorded prompts of the multi-call methods replayed
through the embedded model, before and after issue 36 part 3, in the same run.

The prompts: every model call of recorded units (run stores, ``runs.sqlite``), in the
order each unit sent them; calls answered from veriplan's response cache are kept (a
fresh run sends them), calls a method skipped itself (the same prompt again at
temperature 0) are not. The closed loop (``--closed-loop STORE``, default
``/tmp/rd/runs/cl/runs.sqlite`` when it exists: no closed-loop store is kept in
``results/``), SQ-BCP (``results/sqbcp-qwen``) and AEC (``results/aec-qwen``), each with
the system message its method sends.

"before" is the code as it was: the prompt layout recorded (what stays the same came
after what changes: the closed loop's repair directives inside C, before the problem;
AEC's planning instructions after the facts and the feedback; two of its three
prediction prompts with the facts or the question first; SQ-BCP's facts and steps before
its instructions, its constraints before its actions) and llama.cpp's context alone
(``prefix_cache_mb=0``: it reads what follows the longest common prefix with the last
call). "after" is the code now: the layout of the methods' templates today (stable
text first) and the backend's prefix-state cache (``--cache-mb``). The new layout is
made from each recorded prompt by reading its fields (the old template rendered with
them must give the recorded prompt back exactly; a unit with a prompt that does not,
e.g. one recorded in today's layout by a later run, is left out and counted under "left
out") and rendering the method's template today. AEC's grounded facts were listed sorted;
today each episode's store lists them in a stable order (``state.Listing``: a fact keeps
the place it was first listed at), which depends on the episode's earlier listings: each
unit gets a ``Listing`` of its own, given the facts of every prompt of the unit in order
(the prompts asked again without a call too), so each prompt's facts come out in the order
today's code would list them (``--aec-facts`` counts the alternatives measured when the
order was chosen; ``sorted`` is the order before). A unit of several episodes (each with
its own store) is left out.

``--count`` runs no model: it tokenizes the prompts and answers recorded over
``--units`` units a method (units one after another, as a sweep runs them) and counts
the prompt tokens llama.cpp would read: before, the old layout with the context alone;
after, the new layout with the context and a cache holding ``--cache-mb`` of states
(28 KB a token for the default model); also the two halves (new layout with the
context alone; old layout with the cache), the floor (the new layout with every earlier
state kept: each call reads from the first token no earlier call of the run shares, to
its end) and the part of "before" and "after" read by each unit's first call (a new
task's text).

Without ``--count`` the model runs: three copies of the embedded model in one process
replay ``--units`` units a method (the first ``--calls`` calls of each, at temperature
0, at most ``--max-tokens`` answer tokens: the recorded prompts do not depend on the
answers), unit by unit, rotating which copy goes first: ``before`` (old layout, no
cache), ``layout`` (new layout, no cache) and ``after`` (new layout, cache). Printed per
method: prompt tokens sent, prompt tokens read, seconds and CPU seconds a unit, the
before/after ratios, and whether ``layout`` and ``after`` (the same prompts, the cache
off and on) gave the same answers. On a busy machine the seconds are the scheduler's;
``--threads 1`` makes the CPU seconds follow the model's work.

    flock /tmp/veriplan-model.lock python benchmarks/llamacpp_prefix_cache.py \\
        [--units 2] [--calls 8] [--max-tokens 8] [--threads N] [--closed-loop STORE]
    python benchmarks/llamacpp_prefix_cache.py --count --units 20 \\
        [--aec-facts listing|sorted|first-listed|static-sorted] [--aec-store STORE]
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import sys
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import jinja2

import common
from targets import Target
from veriplan.llm.backends.llamacpp import MIN_PROMPT_BATCH, LlamaCppBackend, _common_prefix
from veriplan.llm.types import LLMRequest, Message
from veriplan.methods.aec.domain import Key, env_model, show
from veriplan.methods.aec.prompting import render as aec_render
from veriplan.methods.aec.state import Listing
from veriplan.methods.closed_loop.method import _ENV as CLOSED_LOOP_TEMPLATES
from veriplan.methods.closed_loop.method import SYSTEM as CLOSED_LOOP_SYSTEM
from veriplan.methods.sqbcp.method import SYSTEM as SQBCP_SYSTEM
from veriplan.methods.sqbcp.method import render as sqbcp_render

ROOT = Path(__file__).resolve().parents[1]
CLOSED_LOOP_STORE = Path("/tmp/rd/runs/cl/runs.sqlite")
STORES = [("sqbcp", ROOT / "results" / "sqbcp-qwen" / "runs.sqlite")]
AEC_STORE = ROOT / "results" / "aec-qwen" / "runs.sqlite"
SYSTEMS = {"closed-loop": CLOSED_LOOP_SYSTEM, "sqbcp": SQBCP_SYSTEM, "aec": None}

# ----- the layout before (the templates as they were at 55ea6d3) ---------------------------
OLD = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
                         autoescape=False, loader=jinja2.DictLoader({
    "lp.j2": """You are solving a planning problem.{% if random_names %} The names of actions, \
predicates and objects below were chosen at random and mean nothing: do not guess from them.\
{% endif %} Use only the definitions.

Domain (PDDL):
{{ domain_pddl }}
{{ constraints }}

Problem (PDDL):
{{ problem_pddl }}
{% if previous %}
Your previous plan:
{{ previous }}
{% endif %}
Write a plan that reaches the goal from the initial state: one action per line in the form \
(action-name object ...), in execution order, nothing else. End with [PLAN END].
""",
    "generate.j2": """You act in a text environment. Your task: {{ task }}

What has been observed for certain (anything not listed is unknown, not false):
{% for f in facts %}- {{ f }}
{% else %}- (nothing yet)
{% endfor %}
{% if actions_help %}Commands look like this:
{{ actions_help }}
{% endif %}{% if admissible %}Commands available right now include: \
{{ admissible | join(", ") }}
{% endif %}{% if feedback %}
What went wrong before:
{% for f in feedback %}- {{ f }}
{% endfor %}{% endif %}
Propose up to {{ k }} different candidate plans that would complete the task from here. Where
something has not been observed (for example where an object is), different plans may
assume different things. For each plan give:
- "actions": the commands, in order, exactly as the environment takes them;
- "preconditions": the facts about the world right now that the plan relies on and does
  not bring about itself{% if max_preconditions %} (the {{ max_preconditions }} that matter most,
  at most){% endif %}, each {"predicate": NAME, "args": [...], "value": true or false}
  with NAME(args) one of {{ predicates | join(", ") }}, written like the observed facts above;
- "score": how likely the plan is to work, from 0 to 1.
Answer only with JSON: {"plans": [ ... ]}
""",
    "predict_doubt.j2": """Statement: {{ question }}.

Evidence so far:
{% for f in facts %}- {{ f }}
{% else %}- (none)
{% endfor %}
Context: someone is trying to {{ task }}
Is the statement true now? If the evidence does not settle it, give your best guess, or
"unknown" if you really cannot guess. Answer only with JSON: \
{"answer": "yes" | "no" | "unknown"}
""",
    "predict_facts.j2": """Task being worked on: {{ task }}

Observed facts (anything not listed has not been observed):
{% for f in facts %}- {{ f }}
{% else %}- (nothing yet)
{% endfor %}
Question: does {{ question }} hold right now?
Answer only with JSON: {"answer": "yes"} or {"answer": "no"}, or {"answer": "unknown"} if you \
cannot tell.
""",
    "predict_world.j2": """You are a world model for a text environment. You know only \
these observations:
{% for f in facts %}- {{ f }}
{% else %}- (nothing observed yet)
{% endfor %}
The agent's task is: {{ task }}
Using what is usual in such places, predict whether {{ question }} is true at this moment.
Reply with JSON {"answer": "yes" | "no" | "unknown"} and nothing else.
""",
    # SQ-BCP's, as they were at dd719d3 (what changes, the facts and the steps, came
    # before the fixed instructions)
    "sqbcp/forward.j2": """Goal: {{ goal }}
{% if constraints %}Hard constraints:
{% for c in constraints %}- {{ c }}
{% endfor %}{% endif %}{% if actions %}Actions (a step is one of these with objects of the task \
in place of the ?parameters):
{% for a in actions %}- {{ a }}
{% endfor %}{% endif %}Known facts (anything not listed is unknown, not false):
{% for f in facts %}- {{ f }}
{% else %}- (none)
{% endfor %}Steps already planned:
{% for s in done %}{{ loop.index }}. {{ s }}
{% else %}(none yet)
{% endfor %}
Propose up to {{ k }} candidate next steps{% if pddl %}, each one action of the domain written \
as (action-name arg1 arg2 ...){% endif %}.
For each step give:
- "action": the step in one imperative sentence that names every resource, tool or ingredient it \
uses;
- "preconditions": what must hold for the step, each {"text": a short statement, "subject": the \
resource, tool or fact it is about, "label": "SAT" if the known facts say it holds, "VIOL" if \
they say it does not, "UNK" if they do not say};
- "effects": {"resources": {name: change in count, e.g. +1 made, -1 used up}, "structure": the \
state of the work afterwards in one sentence, "facts_true": [facts it makes true], \
"facts_false": [facts it makes false], "completes_goal": true only if the goal is reached after \
this step, "seconds": time it takes}.
Answer with JSON: {"hypotheses": [ ... ]}
""",
    "sqbcp/backward.j2": """Goal: {{ goal }}
{% if constraints %}Hard constraints:
{% for c in constraints %}- {{ c }}
{% endfor %}{% endif %}{% if actions %}Actions (a step is one of these with objects of the task \
in place of the ?parameters):
{% for a in actions %}- {{ a }}
{% endfor %}{% endif %}Known facts at the start (anything not listed is unknown, not false):
{% for f in facts %}- {{ f }}
{% else %}- (none)
{% endfor %}Still required{% if then %} before these final steps ({{ then | join("; ") }}){% \
endif %}:
{% for n in needs %}- {{ n }}
{% endfor %}
Working backwards from the goal, propose up to {{ k }} candidate steps that would make something \
in the "still required" list true{% if pddl %}, each one action of the domain written as \
(action-name arg1 arg2 ...){% endif %}. If a step reaches the goal itself, set "completes_goal" \
to true.
For each step give "action", "preconditions" (each {"text", "subject", "label": "SAT", "VIOL" or \
"UNK" against the known facts}) and "effects" ({"resources", "structure", "facts_true", \
"facts_false", "completes_goal", "seconds"}), as JSON: {"hypotheses": [ ... ]}
""",
    "sqbcp/bridge.j2": """Goal: {{ goal }}
{% if actions %}Actions (a step is one of these with objects of the task in place of the \
?parameters):
{% for a in actions %}- {{ a }}
{% endfor %}{% endif %}Known facts (anything not listed is unknown, not false):
{% for f in facts %}- {{ f }}
{% else %}- (none)
{% endfor %}
The step "{{ action }}" needs this, which is not known to hold: {{ need }} (about: {{ subject }}).
{% if tried %}Already proposed, and why each does not do (propose a different step):
{% for a, why in tried %}- {{ a }}: {{ why }}
{% endfor %}{% endif %}{% if actions %}Propose one step that would make it hold, one action of \
the domain written as (action-name arg1 arg2 ...), with its own{% else %}Propose one preparatory \
step that would make it hold (for example checking, preparing, measuring or making it), with its \
own{% endif %} "preconditions" (each {"text", "subject", "label": "SAT", "VIOL" or "UNK"}) and \
"effects" ({"resources", "structure", "facts_true" (include "{{ need }}" if the step establishes \
it), "facts_false", "completes_goal", "seconds"}).
Answer with JSON: {"hypotheses": [ {...} ]}, or {"hypotheses": []} if no single step can make it \
hold.
"""}))

_LP = re.compile(r"You are solving a planning problem\.(?P<rn>.*?) Use only the definitions\."
                 r"\n\nDomain \(PDDL\):\n(?P<domain>.*?)\n(?P<c>Actions \(parameters;.*?)"
                 r"\n\nProblem \(PDDL\):\n(?P<problem>.*?)\n(?:\nYour previous plan:\n"
                 r"(?P<prev>.*)\n)?\nWrite a plan that reaches the goal[^\n]*\n\Z", re.S)
_REPAIR = "\nRepair instructions from checking earlier plans:\n"
_GEN = re.compile(r"You act in a text environment\. Your task: (?P<task>[^\n]*)\n\n"
                  r"What has been observed for certain \(anything not listed is unknown, not "
                  r"false\):\n(?P<facts>(?:- [^\n]*\n)+)\n"
                  r"(?:Commands look like this:\n(?P<help>.*?)\n"
                  r"(?=Commands available|\nWhat went wrong|\nPropose))?"
                  r"(?:Commands available right now include: (?P<adm>[^\n]*)\n)?"
                  r"(?:\nWhat went wrong before:\n(?P<fb>(?:- [^\n]*\n)+))?"
                  r"\nPropose up to (?P<k>\d+) different.*?"
                  r"(?:\(the (?P<mp>\d+) that matter most,.*?)?"
                  r" one of (?P<preds>.*?), written like the observed facts above;", re.S)
_DOUBT = re.compile(r"Statement: (?P<q>.*?)\.\n\nEvidence so far:\n(?P<facts>(?:- [^\n]*\n)+)\n"
                    r"Context: someone is trying to (?P<task>[^\n]*)\n", re.S)
_FACTS = re.compile(r"Task being worked on: (?P<task>[^\n]*)\n\nObserved facts \(anything not "
                    r"listed has not been observed\):\n(?P<facts>(?:- [^\n]*\n)+)\nQuestion: does "
                    r"(?P<q>.*?) hold right now\?\n", re.S)
_WORLD = re.compile(r"You are a world model for a text environment\. You know only these "
                    r"observations:\n(?P<facts>(?:- [^\n]*\n)+)\nThe agent's task is: "
                    r"(?P<task>[^\n]*)\nUsing what is usual in such places, predict whether "
                    r"(?P<q>.*?) is true at this moment\.", re.S)


def _lines(block: str | None, empty: str) -> list[str]:
    items = [x[2:] for x in (block or "").splitlines()]
    return [] if items == [empty] else items


def _lp(p: str, order: Order | None = None) -> tuple[str, str] | None:
    m = _LP.match(p)
    if not m:
        return None
    c, _, directives = m["c"].partition(_REPAIR)
    values = dict(domain_pddl=m["domain"], problem_pddl=m["problem"], previous=m["prev"],
                  random_names=bool(m["rn"]))
    old = OLD.get_template("lp.j2").render(constraints=m["c"], **values)
    new = CLOSED_LOOP_TEMPLATES.get_template("lp.j2").render(
        constraints=c, directives=(_REPAIR[1:] + directives) if directives else "", **values)
    return old, new


# AEC's grounded facts: the recorded prompts list them sorted (GroundedStore.describe
# before issue 36 part 3's fact order); today each episode's store lists them in the
# order of its ``Listing``, which depends on the facts of every earlier listing of
# the episode. ``FactOrder`` replays that: one per unit, given the facts of every
# prompt the unit rendered (model calls and prompts asked again alike), in order.
_FACT = re.compile(r"(?P<p>[^(]+)\((?P<args>.*)\) = (?P<v>true|false)")
Order = Callable[[list[str]], list[str] | None]


FACT_ORDERS = {
    "listing": "today's: a fact keeps the place it was first listed at, new facts last, "
               "static ones first (state.Listing with the action model's static predicates)",
    "sorted": "every list sorted, as before the fact order (today's templates alone)",
    "first-listed": "a fact keeps the place it was first listed at, new facts last, sorted "
                    "(state.Listing with no static predicates)",
    "static-sorted": "every list sorted, the static predicates' facts first",
}


class FactOrder:
    """Today's order of a unit's fact lines: the lines read back into (key,
    value) (each must show as the same line, with the predicate's arity) and
    arranged by a :class:`Listing` with the environment's static predicates,
    kept for the whole unit. None: a line that cannot be read back (the unit
    is left out). ``how``: one of FACT_ORDERS (the others are the alternatives
    measured when the order was chosen)."""

    def __init__(self, env: str, how: str = "listing") -> None:
        model = env_model(env)
        self.arity = dict(model.predicates)
        self.how = how
        self.static = frozenset(getattr(model.actions, "static", ()))
        self.listing = Listing(self.static if how == "listing" else frozenset())

    def __call__(self, lines: list[str]) -> list[str] | None:
        facts: list[tuple[Key, bool]] = []
        for line in lines:
            m = _FACT.fullmatch(line)
            if m is None:
                return None
            key, value = (m["p"], tuple(m["args"].split(", "))), m["v"] == "true"
            if self.arity.get(key[0]) != len(key[1]) or show(key, value) != line:
                return None
            facts.append((key, value))
        if self.how == "sorted":
            facts.sort()
        elif self.how == "static-sorted":
            facts.sort(key=lambda kv: (kv[0][0] not in self.static, kv))
        else:
            facts = self.listing.arrange(facts)
        return [show(k, v) for k, v in facts]


def _aec_pair(name: str, values: dict, order: Order | None) -> tuple[str, str]:
    """An AEC prompt's fields rendered in the old template and in today's, its
    facts in ``order``'s order; today's is "" when a fact was not read back
    (the prompt is then not re-rendered)."""
    old = OLD.get_template(name).render(**values)
    facts = order(values["facts"]) if order is not None else values["facts"]
    if facts is None:
        return old, ""
    return old, aec_render(name, **{**values, "facts": facts})


def _generate(p: str, order: Order | None = None) -> tuple[str, str] | None:
    m = _GEN.match(p)
    if not m:
        return None
    values = dict(task=m["task"], facts=_lines(m["facts"], "(nothing yet)"),
                  actions_help=m["help"] or "", admissible=m["adm"].split(", ") if m["adm"]
                  else [], feedback=_lines(m["fb"], ""), k=int(m["k"]),
                  max_preconditions=int(m["mp"] or 0), predicates=m["preds"].split(", "))
    return _aec_pair("generate.j2", values, order)


def _predict(name: str, pattern: re.Pattern[str], empty: str
             ) -> Callable[[str, Order | None], tuple[str, str] | None]:
    def read(p: str, order: Order | None = None) -> tuple[str, str] | None:
        m = pattern.match(p)
        if not m:
            return None
        values = dict(task=m["task"], facts=_lines(m["facts"], empty), question=m["q"])
        return _aec_pair(name, values, order)
    return read


# SQ-BCP: the goal, the task's constraints and actions, the facts, then what each role adds
_SQ_HEAD = (r"Goal: (?P<goal>.*?)\n(?:Hard constraints:\n(?P<cons>(?:- [^\n]*\n)+))?"
            r"(?:Actions \(a step is one of these with objects of the task in place of the "
            r"\?parameters\):\n(?P<acts>(?:- [^\n]*\n)+))?")
_SQ_FACTS = r" \(anything not listed is unknown, not false\):\n(?P<facts>(?:- [^\n]*\n)+)"
_SQ_PDDL = r"(?P<pddl>, each one action of the domain written as \(action-name arg1 arg2 \.\.\.\))?"
_FORWARD = re.compile(_SQ_HEAD + "Known facts" + _SQ_FACTS + r"Steps already planned:\n"
                      r"(?P<done>.*?)\nPropose up to (?P<k>\d+) candidate next steps" + _SQ_PDDL
                      + r"\.\nFor each step give:\n", re.S)
_BACKWARD = re.compile(_SQ_HEAD + "Known facts at the start" + _SQ_FACTS + r"Still required"
                       r"(?: before these final steps \((?P<then>.*?)\))?:\n"
                       r"(?P<needs>(?:- [^\n]*\n)*)\nWorking backwards from the goal, propose up "
                       r"to (?P<k>\d+) candidate steps that would make something in the \"still "
                       r"required\" list true" + _SQ_PDDL + r"\. If a step", re.S)
_BRIDGE = re.compile(_SQ_HEAD + "Known facts" + _SQ_FACTS + r"\nThe step \"(?P<action>.*?)\" "
                     r"needs this, which is not known to hold: (?P<need>.*?) \(about: "
                     r"(?P<subject>.*?)\)\.\n(?:Already proposed, and why each does not do "
                     r"\(propose a different step\):\n(?P<tried>(?:- [^\n]*\n)+))?Propose one ",
                     re.S)


def _sqbcp(p: str, order: Order | None = None) -> tuple[str, str] | None:
    found = next(((name, m) for name, pattern in (
        ("forward", _FORWARD), ("backward", _BACKWARD), ("bridge", _BRIDGE))
        if (m := pattern.match(p))), None)
    if found is None:
        return None
    name, m = found
    values: dict[str, object] = dict(
        goal=m["goal"], facts=_lines(m["facts"], "(none)"),
        actions=_lines(m["acts"], ""))
    if name == "bridge":
        values.update(action=m["action"], need=m["need"], subject=m["subject"],
                      tried=[tuple(x.partition(": ")[::2]) for x in _lines(m["tried"], "")])
    else:
        values.update(constraints=_lines(m["cons"], ""), k=int(m["k"]), pddl=bool(m["pddl"]))
    if name == "forward":
        done = m["done"].splitlines()
        values["done"] = [] if done == ["(none yet)"] else [x.partition(". ")[2] for x in done]
    elif name == "backward":
        values.update(needs=_lines(m["needs"], ""),
                      then=m["then"].split("; ") if m["then"] else [])
    return (OLD.get_template(f"sqbcp/{name}.j2").render(**values),
            sqbcp_render(f"{name}.j2", **values))


READERS: dict[str, list[Callable[[str, Order | None], tuple[str, str] | None]]] = {
    "closed-loop": [_lp],
    "aec": [_generate, _predict("predict_facts.j2", _FACTS, "(nothing yet)"),
            _predict("predict_doubt.j2", _DOUBT, "(none)"),
            _predict("predict_world.j2", _WORLD, "(nothing observed yet)")],
    "sqbcp": [_sqbcp],
}


@dataclass
class Unit:
    uid: str
    old: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)
    answers: list[str] = field(default_factory=list)
    kept: int = 0  # prompts whose fields could not be read back exactly (left as they were)
    asked_again: int = 0  # AEC: prompts asked again (no call) given to the fact order


LEFT_OUT: dict[str, int] = {}  # method -> units left out (a prompt not read back exactly)


def relayout(method: str, prompt: str, order: Order | None = None) -> tuple[str, bool]:
    """The prompt in today's layout (AEC's facts in ``order``'s order), and
    whether it was read back exactly (a prompt that is not is returned as it
    was)."""
    for read in READERS.get(method, []):
        got = read(prompt, order)
        if got is not None:
            old, new = got
            return (new, True) if old == prompt and new else (prompt, False)
    return prompt, False  # read by none of the method's templates: kept as it was


AEC_PROMPTS = ("hypotheses", "predict")  # the transcript's roles whose prompts list w


def load_units(store: Path, method: str, n: int, calls: int | None, least: int = 2, *,
               facts: str = "listing") -> list[Unit]:
    """The first ``n`` units of ``method`` with ``least`` or more model calls (at
    least 2) whose every prompt was read back exactly, each call's prompt before and
    after, and the recorded answers (the units left out are counted in LEFT_OUT).
    ``facts``: the order of AEC's facts in today's layout (FACT_ORDERS; today's
    is "listing")."""
    con = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    out: list[Unit] = []
    for uid, blob in con.execute("SELECT id, result FROM units WHERE method = ? AND "
                                 "llm_calls > 1 AND result IS NOT NULL ORDER BY id", (method,)):
        try:
            result = json.loads(zlib.decompress(blob))
        except zlib.error:
            result = json.loads(blob)
        unit = Unit(uid)
        order: FactOrder | None = None
        if method == "aec":
            metrics = result.get("metrics", {})
            if metrics.get("iterations", 1) != 1 or metrics.get("env") is None:
                # a unit of several episodes (each with its own store) or of an
                # unknown environment: where each listing began cannot be told
                LEFT_OUT[method] = LEFT_OUT.get(method, 0) + 1
                continue
            order = FactOrder(metrics["env"], facts)
        for t in result.get("transcript", []):
            if not t.get("prompt"):
                continue  # not a model call (a query, a check)
            if t.get("call") is None:
                if order is not None and t.get("role") in AEC_PROMPTS:
                    # asked again (no call): the store listed its facts all the same
                    unit.kept += not relayout(method, t["prompt"], order)[1]
                    unit.asked_again += 1
                continue
            new, exact = relayout(method, t["prompt"], order)
            unit.old.append(t["prompt"])
            unit.new.append(new)
            unit.answers.append(t.get("response") or "")
            unit.kept += not exact
        if calls:
            unit.old, unit.new, unit.answers = (unit.old[:calls], unit.new[:calls],
                                                unit.answers[:calls])
        if unit.kept:
            LEFT_OUT[method] = LEFT_OUT.get(method, 0) + 1
        elif len(unit.old) >= max(2, least):
            out.append(unit)
        if len(out) >= n:
            break
    con.close()
    return out


# ----- counting (no model) -----------------------------------------------------------------
def _lcp(a: list[int], b: list[int]) -> int:
    return _common_prefix(tuple(a), tuple(b))


class Reader:
    """The prompt tokens llama.cpp reads: the context's longest common prefix with
    the last call, and with ``cache_tokens`` of kept states (0: none); at least
    ``least`` tokens a call (the code before read at least 1, the backend now reads
    at least MIN_PROMPT_BATCH)."""

    def __init__(self, cache_tokens: int, least: int) -> None:
        self.cap = cache_tokens
        self.least = least
        self.ctx: list[int] = []
        self.cache: list[list[int]] = []
        self.read = 0

    def call(self, prompt: list[int], answer: list[int]) -> None:
        shared = max([_lcp(self.ctx, prompt), *(_lcp(c, prompt) for c in self.cache)])
        self.read += max(len(prompt) - shared, min(len(prompt), self.least))
        self.ctx = prompt + answer
        if self.cap:
            self.cache = [c for c in self.cache if self.ctx[:len(c)] != c] + [self.ctx]
            while self.cache and sum(map(len, self.cache)) > self.cap:
                self.cache.pop(0)


def count(work: list[tuple[str, list[Unit]]], cache_mb: int, model: str | None) -> None:
    import llama_cpp

    from veriplan.llm.models import DEFAULT_MODEL, resolve_model

    vocab = llama_cpp.Llama(model_path=str(resolve_model(model or DEFAULT_MODEL)),
                            vocab_only=True, verbose=False)

    def chat(system: str | None, user: str) -> list[int]:
        system = system or "You are Qwen, created by Alibaba Cloud. You are a helpful assistant."
        text = (f"<|im_start|>system\n{system}<|im_end|>\n<|im_start|>user\n{user}<|im_end|>\n"
                "<|im_start|>assistant\n")
        return vocab.tokenize(text.encode(), add_bos=False, special=True)

    cap = (cache_mb << 20) // (28 << 10)
    tokens: dict[str, float] = {}  # method -> prompt tokens read before / after
    print(f"{'method':12s} {'units':>5s} {'calls':>5s} {'left out':>8s} {'sent':>8s} "
          f"{'before':>8s} {'new layout':>10s} {'old+cache':>9s} {'after':>8s} "
          f"{'before/after':>12s} {'sent/after':>10s} {'floor':>7s} {'1st before':>10s} "
          f"{'1st after':>9s}")
    for method, units in work:
        system = SYSTEMS.get(method)
        sent = 0
        readers = {k: Reader(c, least) for k, c, least in (
            ("before", 0, 1), ("layout", 0, MIN_PROMPT_BATCH), ("oldcache", cap, MIN_PROMPT_BATCH),
            ("after", cap, MIN_PROMPT_BATCH), ("floor", 1 << 62, MIN_PROMPT_BATCH))}
        calls = 0
        first = {"before": 0, "after": 0}  # read by each unit's first call
        for u in units:
            for i, (old, new, ans) in enumerate(zip(u.old, u.new, u.answers, strict=True)):
                was = {k: readers[k].read for k in first}
                po, pn = chat(system, old), chat(system, new)
                a = vocab.tokenize(ans.encode(), add_bos=False, special=False)
                calls += 1
                sent += len(pn)
                readers["before"].call(po, a)
                readers["oldcache"].call(po, a)
                readers["layout"].call(pn, a)
                readers["after"].call(pn, a)
                readers["floor"].call(pn, a)
                if i == 0:
                    for k in first:
                        first[k] += readers[k].read - was[k]
        r = {k: v.read for k, v in readers.items()}
        print(f"{method:12s} {len(units):5d} {calls:5d} {LEFT_OUT.get(method, 0):8d} {sent:8d} "
              f"{r['before']:8d} "
              f"{r['layout']:10d} {r['oldcache']:9d} {r['after']:8d} "
              f"{r['before'] / max(r['after'], 1):11.2f}x {sent / max(r['after'], 1):9.2f}x "
              f"{r['floor']:7d} {first['before']:10d} {first['after']:9d}", flush=True)
        tokens[method] = r["before"] / max(r["after"], 1)
    print("targets (issue 36), counted:")
    for method, ratio in tokens.items():
        print(f"  {method}: {TOKENS.line({'counted': [ratio]})}")


#: Issue 36 part 3's targets: prompt tokens read before / after, seconds a unit before / after.
TOKENS = Target("prompt tokens read, before / after", 2)
TIME = Target("seconds a unit, before / after", 1.5)


# ----- the model ---------------------------------------------------------------------------
def replay(backend: LlamaCppBackend, system: str | None, prompts: list[str], max_tokens: int
           ) -> tuple[int, int, float, list[str], float]:
    """(prompt tokens sent, prompt tokens read, seconds, answers, CPU seconds of
    this process)."""
    sent = read = 0
    answers = []
    start, cpu = time.perf_counter(), time.process_time()
    for p in prompts:
        msgs = ((Message("system", system),) if system else ()) + (Message("user", p),)
        r = backend.complete(LLMRequest(msgs, temperature=0.0, max_tokens=max_tokens, seed=0))
        sent += r.prompt_tokens
        read += int(r.extra.get("prompt_evaluated", 0))
        answers.append(r.text)
    return sent, read, time.perf_counter() - start, answers, time.process_time() - cpu


def run_model(work: list[tuple[str, list[Unit]]], args) -> None:  # type: ignore[no-untyped-def]
    names = [n for n in ("before", "layout", "after") if n in args.copies.split(",")]
    copies = {n: LlamaCppBackend(args.model, n_threads=args.threads,
                                 prefix_cache_mb=args.cache_mb if n == "after" else 0)
              for n in names}
    load0 = os.getloadavg()
    print(f"{'method':12s} {'units':>5s} {'calls':>5s} {'sent':>7s} {'read before':>11s} "
          f"{'read layout':>11s} {'read after':>10s} {'ratio':>6s} {'s/unit before':>13s} "
          f"{'s/unit layout':>13s} {'s/unit after':>12s} {'ratio':>6s} same answers")
    turn = 0
    met: dict[str, tuple[str, str, str]] = {}
    for method, units in work:
        system = SYSTEMS.get(method)
        tot = {k: [0, 0, 0.0, 0.0] for k in ("before", "layout", "after")}
        same = total = calls = 0
        for u in units:
            order = list(copies)
            order = order[turn % len(order):] + order[:turn % len(order)]
            turn += 1
            got: dict[str, tuple[int, int, float, list[str], float]] = {}
            for name in order:
                if name == "layout" and u.old == u.new:
                    continue  # the same prompts as before's (SQ-BCP): the same run
                prompts = u.old if name == "before" else u.new
                got[name] = replay(copies[name], system, prompts, args.max_tokens)
            if u.old == u.new:
                got.setdefault("layout", got["before"])
            for name, (sent, read, secs, _, cpu) in got.items():
                t = tot[name]
                t[0], t[1], t[2], t[3] = t[0] + sent, t[1] + read, t[2] + secs, t[3] + cpu
            if "layout" in got:
                same += sum(a == b for a, b in zip(got["layout"][3], got["after"][3],
                                                   strict=True))
                total += len(u.new)
            print(f"  {method} {u.uid}: {len(u.new)} calls; read " + ", ".join(
                f"{k} {v[1]} in {v[2]:.1f} s (CPU {v[4]:.1f} s)" for k, v in got.items()),
                flush=True)
            calls += len(u.new)
        n = max(1, len(units))
        b, lay, a = tot["before"], tot["layout"], tot["after"]
        laid = lay[2] > 0 or not units
        print(f"{method:12s} {len(units):5d} {calls:5d} {a[0]:7d} {b[1]:11d} "
              f"{lay[1] if laid else '-':>11} {a[1]:10d} {b[1] / max(a[1], 1):5.2f}x "
              f"{b[2] / n:13.1f} {f'{lay[2] / n:.1f}' if laid else '-':>13} {a[2] / n:12.1f} "
              f"{b[2] / max(a[2], 1e-9):5.2f}x {f'{same}/{total}' if total else '-'}",
              flush=True)
        print(f"{'':12s} CPU seconds a unit: before {b[3] / n:.1f}, layout "
              f"{f'{lay[3] / n:.1f}' if laid else '-'}, after {a[3] / n:.1f}, before/after "
              f"{b[3] / max(a[3], 1e-9):.2f}x", flush=True)
        met[method] = (TOKENS.line({"replayed": [b[1] / max(a[1], 1)]}),
                       TIME.line({"wall": [b[2] / max(a[2], 1e-9)],
                                  "CPU": [b[3] / max(a[3], 1e-9)]}),
                       f"same answers, cache off / on: {same}/{total}: "
                       + ("met" if total and same == total else "not shown" if not total
                          else "not met"))
    stats = copies["after"].cache_stats() if "after" in copies else {
        "states": 0, "bytes": 0, "hits": 0, "misses": 0}
    print(f"load average {load0[0]:.1f} / {load0[1]:.1f} at the start, "
          f"{os.getloadavg()[0]:.1f} / {os.getloadavg()[1]:.1f} at the end; max "
          f"{args.max_tokens} answer tokens; cache {args.cache_mb} MB: {stats['states']} "
          f"states, {stats['bytes'] / (1 << 20):.0f} MB held at the end, "
          f"{stats['hits']} hits, {stats['misses']} misses")
    print("targets (issue 36), this replay:")
    for method, lines in met.items():
        print("\n".join(f"  {method}: {line}" for line in lines))


def main() -> int:
    ap = common.parser(__doc__)
    ap.add_argument("--units", type=int, default=2, help="units a method (default 2)")
    ap.add_argument("--calls", type=int, default=8,
                    help="first calls of a unit replayed through the model (default 8; "
                         "--count takes every call)")
    ap.add_argument("--max-tokens", type=int, default=8)
    ap.add_argument("--min-calls", type=int, default=2,
                    help="only units with at least this many model calls (default 2)")
    ap.add_argument("--cache-mb", type=int, default=1024)
    ap.add_argument("--closed-loop", type=Path, default=CLOSED_LOOP_STORE,
                    help="a closed-loop run store (runs.sqlite)")
    ap.add_argument("--methods", default="closed-loop,sqbcp,aec")
    ap.add_argument("--copies", default="before,layout,after",
                    help="the model copies run (layout: the new layout with the cache "
                         "off, to compare answers with the cache off and on)")
    ap.add_argument("--model", default=None)
    ap.add_argument("--threads", type=int, default=None,
                    help="llama.cpp threads a copy (default: the usable CPUs); with 1, the "
                         "CPU seconds printed follow the work done even on a busy machine")
    ap.add_argument("--count", action="store_true",
                    help="count the tokens read without running the model")
    ap.add_argument("--aec-store", type=Path, default=AEC_STORE,
                    help="the AEC run store (default results/aec-qwen/runs.sqlite; "
                         "results/aec-qwen-scienceworld/runs.sqlite has ScienceWorld's)")
    ap.add_argument("--aec-facts", choices=tuple(FACT_ORDERS), default="listing",
                    help="the order of AEC's facts in today's prompts: " + "; ".join(
                        f"{k}: {v}" for k, v in FACT_ORDERS.items()))
    args = ap.parse_args()
    stores = [("closed-loop", args.closed_loop), *STORES, ("aec", args.aec_store)]
    wanted = args.methods.split(",")
    work = [(m, load_units(s, m, args.units, None if args.count else args.calls,
                           args.min_calls, facts=args.aec_facts))
            for m, s in stores if m in wanted and s.is_file()]
    if args.count:
        count(work, args.cache_mb, args.model)
    else:
        run_model(work, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
