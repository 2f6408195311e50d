"""The baselines SQ-BCP is compared with on hidden-precondition tasks, with the
same prompt structure (SQ-BCP's system message and token limit; goal, hard
constraints, known facts, the same k-reveal variant) and the same oracle:
direct prompting, chain of thought, a Tree-of-Thoughts-style branching
(sampled candidate plans, the model votes), ReAct (its actions may ask the
oracle), and Self-Ask (follow-up questions go to the oracle); Thoughts of
Search, on hidden-fact PDDL only, is :mod:`.hidden_tos`. Every plan is
judged on the true task by the task's decider, the same one that judges
SQ-BCP's: ``verified`` only when its verdict is valid (scope ``HIDDEN_TASK``:
no step uses an item the user lacks, and the plan uses what the product is
made with; unknown is never verified)."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING

from veriplan.core.problems import ProblemKind
from veriplan.core.verdict import Scope, Verdict
from veriplan.domains.hidden.metrics import judge
from veriplan.domains.hidden.task import HiddenTask
from veriplan.llm.client import LLM
from veriplan.llm.types import LLMRequest, Message
from veriplan.methods.baselines import render
from veriplan.methods.failures import HiddenTaskFailure
from veriplan.methods.records import Entry, Event, Observer, quiet
from veriplan.methods.result import Run, SolveResult
from veriplan.methods.settings import check
from veriplan.methods.sqbcp.config import Config as SQConfig
from veriplan.methods.sqbcp.request import SYSTEM as SQ_SYSTEM
from veriplan.methods.sqbcp.request import request_for

if TYPE_CHECKING:
    from veriplan.core.jsonvalue import JSONValue
    from veriplan.pddl.task import Task

PROBLEM = ProblemKind.HIDDEN
# SQ-BCP's system message without its sentence on the answer's form (JSON there; a
# "Plan:" with numbered steps here): the same instruction about unstated facts.
SYSTEM = " ".join(s for s in re.split(r"(?<=[.!?])\s+", SQ_SYSTEM) if "JSON" not in s)

_MARK = r"[ \t]*[#>*_`\-\s]*"  # markdown a line may start with
_PLAN = re.compile(rf"^{_MARK}(?:final\s+)?plan\s*[*_]*\s*:[*_]*\s*(.*)$", re.I)
_NUMBERED = re.compile(r"^[*_]*\s*(?:step\s*)?\d+\s*[.):]\s*(.*)$", re.I)
_BULLET = re.compile(r"^[-*+\u2022]\s+(.*)$")
_LABEL = re.compile(r"^(?:step\s*\d+\s*[.):]?|\d+\s*[.):])\s*", re.I)  # "Step 1:" inside
_CALL = re.compile(r"\(\s*([\w-]+)((?:\s+[\w?-]+)*)\s*\)")
_FOLLOW_UP = re.compile(r"^[^\w\n]*follow[- ]?up(?: question)?[*_]*[ \t]*:[*_ \t]*(.+)$",
                        re.I | re.M)
_NO_MORE = re.compile(r"^[^\w\n]*are follow[- ]?up questions needed here[*_]*[ \t]*:[^\w\n]*no\b",
                      re.I | re.M)


@dataclass(frozen=True)
class Config:
    k: int = 1  # revealed latent preconditions (the k-reveal protocol)
    reveal_seed: int = 0
    branches: int = 3  # ToT: candidate plans sampled
    # ReAct turns, each one action: a question, one plan step or "Finish". The SQ-BCP paper
    # sets ReAct no budget; this one is ours and must not stop ReAct before the other
    # baselines would stop: they may ask max_questions questions and then write a plan of
    # any length, while every ReAct step takes a turn. So it leaves room for max_questions
    # questions, a plan as long as the longest reference plan of the hidden-task datasets
    # (53 steps, hidden-fact PDDL) and "Finish". It was 12 before issue 33, which cut off
    # the plan of every task whose reference plan and questions need more turns.
    max_turns: int = 64
    max_questions: int = 8  # Self-Ask follow-up questions; Direct/CoT/ToT/ReAct questions
    # The paper (Section 5.3): every baseline has access to the oracle. Direct, CoT and
    # ToT may first ask questions ("Ask: ..." lines), answered by the same oracle, then
    # plan with the answers shown; False: they plan from the prompt alone (before issue 33).
    oracle: bool = True
    temperature: float = 0.0
    max_tokens: int = SQConfig.max_tokens  # SQ-BCP's, per answer
    seed: int = 0

    def __post_init__(self) -> None:
        check(self, minimum={"k": 0, "branches": 1, "max_turns": 1, "max_questions": 0,
                             "temperature": 0.0, "max_tokens": 1})


def _clean(text: str) -> str:
    """A line without markdown emphasis, a leading bullet or a "Step 1:" label."""
    t = re.sub(r"\*\*|__|`", "", text).strip()
    m = _BULLET.match(t)
    t = (m.group(1) if m else t).strip()
    return _LABEL.sub("", t).strip()


def _join(parts: list[str]) -> str:
    out = ""
    for p in (p for p in parts if p):
        out = p if not out else out + (" " if out[-1] in ".!?:;," else "; ") + p
    return out


def _action(text: str, actions: frozenset[str]) -> str:
    """The one domain action ``text`` names, as "(name args)"; else ``text``."""
    found = {"(" + " ".join([m.group(1), *m.group(2).split()]).lower() + ")"
             for m in _CALL.finditer(text) if m.group(1).lower() in actions}
    return found.pop() if len(found) == 1 else text


def read_steps(text: str, actions: Collection[str] = ()) -> list[str]:
    """The plan in an answer: the list after the last "Plan:" line (without one,
    the first numbered list of the answer).

    An item is a numbered line, or a line that opens with "(" (a PDDL action);
    after a "Plan:" line, a bulleted list is read the same way. An item runs on
    over the lines indented under it and over bullet lines (markdown emphasis,
    bullets and "Step N:" labels removed, joined into one step); blank lines
    between items do not end the list; a heading, or a line of prose at the
    list's own indentation, does. With ``actions`` (the domain's action names),
    a step whose text names exactly one action "(name args...)" is that action.
    """
    lines = text.splitlines()
    marks = [i for i, line in enumerate(lines) if _PLAN.match(line)]
    if marks:
        rest = _PLAN.match(lines[marks[-1]]).group(1)  # type: ignore[union-attr]
        body = ([rest] if rest.strip() else []) + lines[marks[-1] + 1:]
    else:
        body = lines
    items: list[list[str]] = []
    indent = -1  # the list's own indentation, once its first item is read
    bullets = False  # a bulleted list (only after a "Plan:" line)
    for line in body:
        s = line.strip()
        if not s:
            continue
        depth = len(line) - len(line.lstrip())
        bare = re.sub(r"\*\*|__|`", "", s).strip()
        numbered, bullet = _NUMBERED.match(s), _BULLET.match(s)
        call = _CALL.match(bare) is not None  # a line that opens with "(name args)"
        is_item = bool(numbered) or call or (bullets and bullet is not None)
        if indent < 0:  # before the list: find its first item
            if numbered or call:
                indent = depth
            elif marks and bullet:
                indent, bullets = depth, True
            else:
                continue
            items.append([_clean(numbered.group(1) if numbered else s)])
            continue
        if s.startswith("#"):
            break
        if depth > indent or (bullet and not bullets):
            items[-1].append(_clean(s))
        elif is_item:
            items.append([_clean(numbered.group(1) if numbered else s)])
        else:
            break
    names = frozenset(a.lower() for a in actions)
    steps = [_join(parts) for parts in items]
    return [_action(s, names) if names else s for s in steps if s]


def action_names(lines: Collection[str], pddl: Task | None = None) -> frozenset[str]:
    """The names of the task's actions: from the prompt's action lines
    ("(pick-up ?x) requires ...") and the visible PDDL task's domain."""
    names = {m.group(1).lower() for a in lines if (m := re.match(r"^\s*\(\s*([^\s()]+)", a))}
    domain = getattr(pddl, "domain", None)
    names.update(a.name.lower() for a in getattr(domain, "actions", ()))
    return frozenset(names)


class _Setting:
    """The variant, the oracle and the prompt values every baseline shares."""

    def __init__(self, task: HiddenTask, config: Config) -> None:
        from veriplan.domains.hidden import Oracle

        req = request_for(task, SQConfig(k=config.k, reveal_seed=config.reveal_seed))
        self.task, self.req = task, req
        self.oracle = req.oracle if req.oracle is not None else Oracle(task)
        # the known facts and the revealed preconditions, each once, as the task states
        # them ("not so: you have butter (you could use margarine instead)")
        facts = list(task.variant(config.k, config.reveal_seed).prompt_facts())
        self.actions = action_names(req.actions, req.pddl)
        self.values = {"goal": req.goal, "constraints": req.constraints, "facts": facts,
                       "pddl": req.pddl is not None, "actions": req.actions, "answers": [],
                       "may_ask": False}

    def steps(self, text: str) -> list[str]:
        return read_steps(text, self.actions)


def _ask(run: Run, log: list[Entry], role: str, prompt: str, config: Config,
         stop: tuple[str, ...] = (), sample: int = 0) -> str:
    temperature = config.temperature if not sample else max(config.temperature, 0.7)
    req = LLMRequest((Message("system", SYSTEM), Message("user", prompt)),
                     temperature=temperature, max_tokens=config.max_tokens, seed=config.seed,
                     stop=stop, sample_index=sample)
    resp = run.llm.complete(req)
    log.append(Entry(sum(e.call is not None for e in log) + 1, role, prompt, resp.text,
                     resp.cached))
    return resp.text


def _finish(run: Run, s: _Setting, log: list[Entry], plan: list[str], emit: Observer,
            extra: dict[str, JSONValue] | None = None) -> SolveResult:
    j = judge(s.task, plan)
    verified = bool(plan) and j["verdict"] == Verdict.VALID.value
    verdict = "no plan read" if not plan else (
        "valid on the true task" if verified else
        f"{j['verdict']} on the true task: " + "; ".join(j["violations"]))
    for e in reversed(log):
        if e.call is not None and not e.verdict:
            e.plan, e.ok, e.verdict = list(plan), verified, verdict
            break
    for e in log:
        if e.call is not None and not e.verdict:
            e.verdict = "(not judged on its own)"
    emit(Event("verdict", verdict, ok=verified, plan=tuple(plan)))
    metrics = {**j, "queries": s.oracle.calls, "oracle_calls": s.oracle.calls,
               "hypotheses": 0, "latent": s.task.m, "hidden": s.req.hidden,
               "family": s.task.family, "plan_length": len(plan), **(extra or {})}
    failure = None if verified else (
        HiddenTaskFailure.NO_PLAN if not plan else HiddenTaskFailure.VIOLATION if j["violated"]
        else HiddenTaskFailure.UNKNOWN if j["unknown"] else HiddenTaskFailure.WRONG)
    return run.result(verified=verified, plan=plan, attempts=sum(e.call is not None for e in log),
                      failure=failure, metrics=metrics, transcript=log,
                      last_diagnosis="" if verified else verdict,
                      scope=Scope.HIDDEN_TASK)


_ASK = re.compile(r"^[^\w\n]*ask\s*:[*_ \t]*(.+)$", re.I | re.M)


def questions(text: str) -> list[str]:
    """The "Ask: ..." lines of an answer that has no plan yet."""
    if any(_PLAN.match(line) for line in text.splitlines()):
        return []
    return [q.strip() for q in _ASK.findall(text) if q.strip()]


def _with_oracle(run: Run, s: _Setting, log: list[Entry], template: str,
                 config: Config) -> str:
    """One answer to ``template``; with the oracle, an answer that asks instead
    of planning gets its questions (at most ``max_questions``) answered by the
    oracle, then the model is asked again with the answers shown."""
    may = config.oracle and config.max_questions > 0
    text = _ask(run, log, "plan", render(template, **{**s.values, "may_ask": may}), config)
    asked = questions(text)[:config.max_questions] if config.oracle else []
    if not asked:
        return text
    answers = [(q, s.oracle.ask(q)) for q in asked]
    log[-1].verdict = "asked: " + ", ".join(a.status for _, a in answers)
    s.values["answers"] = [(q, a.text) for q, a in answers]
    return _ask(run, log, "plan", render(template, **{**s.values, "may_ask": False}), config)


def direct(problem: HiddenTask, llm: LLM, config: Config = Config(), *,
           observer: Observer | None = None) -> SolveResult:
    run, s, log = Run("hidden-direct", llm), _Setting(problem, config), []
    text = _with_oracle(run, s, log, "hidden_direct.j2", config)
    return _finish(run, s, log, s.steps(text), observer or quiet)


def cot(problem: HiddenTask, llm: LLM, config: Config = Config(), *,
        observer: Observer | None = None) -> SolveResult:
    run, s, log = Run("hidden-cot", llm), _Setting(problem, config), []
    text = _with_oracle(run, s, log, "hidden_cot.j2", config)
    return _finish(run, s, log, s.steps(text), observer or quiet)


def tot(problem: HiddenTask, llm: LLM, config: Config = Config(), *,
        observer: Observer | None = None) -> SolveResult:
    """Branching: ``branches`` sampled chain-of-thought plans, then one vote."""
    run, s, log = Run("hidden-tot", llm), _Setting(problem, config), []
    plans = []
    if config.oracle and config.max_questions > 0:  # one round of questions, shared
        first = _with_oracle(run, s, log, "hidden_cot.j2", config)
        if not s.values["answers"]:  # it planned at once: that answer is the first branch
            log[-1].role = "branch"
    for b in range(config.branches):
        if b == 0 and config.oracle and config.max_questions > 0:
            text = first
        else:
            text = _ask(run, log, "branch", render("hidden_cot.j2", **s.values), config,
                        sample=b)
        steps = s.steps(text)
        log[-1].plan, log[-1].verdict = steps, f"candidate {b + 1}: {len(steps)} step(s)"
        if steps:
            plans.append(steps)
    if not plans:
        return _finish(run, s, log, [], observer or quiet, {"branches": 0})
    best = 0
    if len(plans) > 1:
        vote = _ask(run, log, "vote", render("hidden_tot_vote.j2", plans=plans, **s.values),
                    config)
        m = re.search(r"best\s*[:=]?\s*(?:candidate\s*)?(\d+)", vote, re.I)
        best = int(m.group(1)) - 1 if m and 0 < int(m.group(1)) <= len(plans) else 0
    return _finish(run, s, log, plans[best], observer or quiet,
                   {"branches": len(plans), "chosen": best + 1})


def react(problem: HiddenTask, llm: LLM, config: Config = Config(), *,
          observer: Observer | None = None) -> SolveResult:
    run, s, log = Run("hidden-react", llm), _Setting(problem, config), []
    emit = observer or quiet
    history: list[dict[str, str]] = []
    plan: list[str] = []
    # the questions it may ask: as many as the other baselines (none without the oracle)
    may_ask = config.max_questions if config.oracle else 0
    asked = 0
    finished = False
    for _ in range(config.max_turns):
        text = _ask(run, log, "turn", render("hidden_react.j2", history=history, **s.values),
                    config, stop=("\nObservation",))
        thought = _field(text, "thought")
        action = _field(text, "action")
        if re.match(r"^\W*finish", action, re.I):
            log[-1].verdict = "finish"
            finished = True
            break
        if action.lower().startswith("ask:") and asked >= may_ask:
            observation = (f"No more questions ({may_ask} asked): write a step or Finish."
                           if may_ask else "No questions here: write a step or Finish.")
            log[-1].ok, log[-1].verdict = False, "question over the budget"
        elif action.lower().startswith("ask:"):
            answer = s.oracle.ask(action[4:].strip())
            asked += 1
            observation = answer.text
            log[-1].verdict = f"asked: {answer.status}"
        elif action.lower().startswith("step:"):
            plan.append(action[5:].strip())
            observation = "Noted."
            log[-1].verdict = "step noted"
        else:
            observation = 'Write one action: "Ask: ...", "Step: ..." or "Finish".'
            log[-1].ok, log[-1].verdict = False, "not an action"
        history.append({"thought": thought, "action": action or "(none)",
                        "observation": observation})
        emit(Event("turn", f"{action or '(none)'}: {observation}"))
    # out_of_turns: the turn budget ended the run before the model wrote "Finish"
    return _finish(run, s, log, plan, emit, {"turns": len(history), "questions": asked,
                                             "out_of_turns": not finished})


def self_ask(problem: HiddenTask, llm: LLM, config: Config = Config(), *,
             observer: Observer | None = None) -> SolveResult:
    """Self-Ask: follow-up questions, each answered by the oracle, then a plan."""
    run, s, log = Run("self-ask", llm), _Setting(problem, config), []
    asked: list[tuple[str, str]] = []
    text = ""
    for _ in range(config.max_questions + 1):
        text = _ask(run, log, "self-ask", render("hidden_selfask.j2", asked=asked, **s.values),
                    config, stop=("\nIntermediate answer",))
        question = follow_up(text)
        if question and len(asked) < config.max_questions:
            answer = s.oracle.ask(question)
            asked.append((question, answer.text))
            log[-1].verdict = f"asked: {answer.status}"
            continue
        break
    return _finish(run, s, log, s.steps(text), observer or quiet,
                   {"questions": len(asked)})


def follow_up(text: str) -> str | None:
    """The question of a Self-Ask answer: its first "Follow up:" line when that
    comes before any "Are follow-up questions needed here: No" line and before
    the "Plan:" line (an answer that echoes the instruction still asks)."""
    m = _FOLLOW_UP.search(text)
    if m is None or not m.group(1).strip():
        return None
    no_more = _NO_MORE.search(text)
    plan = next((i for i, line in enumerate(text.splitlines()) if _PLAN.match(line)), None)
    line = text.count("\n", 0, m.start())
    if (no_more and no_more.start() < m.start()) or (plan is not None and plan <= line):
        return None
    return m.group(1).strip()


def _field(text: str, name: str) -> str:
    for line in text.splitlines():
        m = re.match(rf"^\W*{name}\s*:\s*(.*)$", line, re.I)
        if m:
            return m.group(1).strip()
    return ""


METHODS: dict[str, Callable[..., SolveResult]] = {
    "hidden-direct": direct, "hidden-cot": cot, "hidden-tot": tot, "hidden-react": react,
    "self-ask": self_ask}


def _spec(name: str, fn: Callable[..., SolveResult]):
    from veriplan.methods import MethodSpec

    return MethodSpec(name, fn, Config, PROBLEM)


DIRECT, COT = _spec("hidden-direct", direct), _spec("hidden-cot", cot)
TOT = _spec("hidden-tot", tot)
REACT, SELF_ASK = _spec("hidden-react", react), _spec("self-ask", self_ask)
