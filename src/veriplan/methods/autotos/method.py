"""The AutoToS loop (the paper's Figure 1): ask for a successor function and a
goal test, check them with goal unit tests (Step 2), a search with soundness
checks on example instances (Step 3) and successor completeness tests
(Step 4), feeding each failure back, within a call budget; then solve every
evaluation instance with BFS/DFS and validate every solution independently of
the generated code. Generated code runs only in the sandbox.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, NotRequired, TypedDict, Unpack

import jinja2

from veriplan.domains.autotos import DomainData, SearchDomain, get_domain
from veriplan.errors import BadRequestError
from veriplan.llm.client import LLM
from veriplan.llm.types import LLMRequest, Message
from veriplan.methods.autotos import judge
from veriplan.methods.autotos.config import Config
from veriplan.methods.autotos.problem import AutoToSProblem, AutoToSResult
from veriplan.methods.failures import AutoToSFailure
from veriplan.methods.records import Entry, Event, Observer, quiet
from veriplan.methods.result import Run
from veriplan.sandbox.secrets import scrub, secret_values

if TYPE_CHECKING:
    from veriplan.core.jsonvalue import JSONValue
    from veriplan.domains.autotos.base import Instance
    from veriplan.methods.autotos.judge import CheckResult, FailureData, SearchResult


class CheckPayload(TypedDict, total=False):
    """What a :func:`check` takes besides the functions, by mode: ``instances``
    (goal_tests' units, soundness' and evaluate's instances: id, init, meta),
    ``pairs`` (completeness: state, successors, meta), ``partial`` (soundness),
    ``checks`` (evaluate)."""

    instances: list[dict[str, JSONValue]]
    pairs: list[dict[str, JSONValue]]
    partial: bool
    checks: bool


class InvalidExample(TypedDict):
    id: str
    problem: str


class Evaluation(TypedDict):
    """What :func:`evaluate` gives: the accuracy at one point of a run and its counts."""

    accuracy: float
    solved: int
    valid: int
    optimal: int
    instances: int
    seconds: float
    categories: dict[str, int]  # what went wrong, by failure category
    failure: NotRequired[FailureData]  # the check itself failed: nothing was solved
    invalid_examples: NotRequired[list[InvalidExample]]
    calls: NotRequired[int]


class LoopMetrics(TypedDict):
    """What the report's AutoToS tables read (:func:`metrics`)."""

    domain: str
    status: str
    calls: dict[str, int]
    categories: dict[str, int]
    feedback: dict[str, int]
    partial_check: bool
    accuracy: dict[str, float | None]  # by point of the run


@cache
def _text(name: str) -> str:
    return resources.files(__package__).joinpath("prompts", name).read_text()


def feedback(failure: FailureData, domain: SearchDomain | None = None) -> str:
    """The text fed back for a failure: what went wrong, the failing call's
    state and every other argument, and what the model should do (after a
    partial soundness check, the domain's own request)."""
    show = domain.show if domain is not None else repr

    def state(x: object) -> str:
        try:
            return show(x)
        except Exception:  # noqa: BLE001 - evidence that is not a state of the domain
            return repr(x)

    env = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False,
                             keep_trailing_newline=False)
    env.filters["state"] = state
    env.filters["py"] = repr
    evidence = failure.get("evidence") or {}
    return env.from_string(_text("feedback.j2")).render(
        category=failure["category"], message=failure.get("message", ""),
        evidence=evidence, args=evidence.get("args") or {},
        advice=domain.partial_advice if domain is not None else "").strip()


_FENCE = re.compile(r"```[ \t]*([\w+\-.]*)[ \t]*\n(.*?)(?:```|\Z)", re.S)
_DEF = re.compile(r"^[ \t]*def ", re.M)


def function_code(answer: str) -> str | None:
    """The code in an answer: the last fenced Python (or unlabelled) block that
    defines a function, so that a usage example after the function is not
    taken for it; an answer without fences that defines one; else None."""
    blocks = [body for lang, body in _FENCE.findall(answer)
              if lang.lower() in ("python", "py", "python3", "")]
    defining = [b for b in blocks if _DEF.search(b)]
    if defining:
        return defining[-1].rstrip("\n") + "\n"
    if not blocks and "```" not in answer and _DEF.search(answer):
        return answer
    return None


def _payload_instances(instances: Iterable[Instance]) -> list[dict[str, JSONValue]]:
    return [{"id": i.id, "init": i.init, "meta": i.meta} for i in instances]


def check(domain: SearchDomain, mode: str, succ: str | None, goal: str, config: Config,
          solved: Callable[[int, SearchResult], None] | None = None,
          **payload: Unpack[CheckPayload]) -> CheckResult:
    """One check of the model's functions; returns {"failure": ... or None, ...}.
    The functions run in the sandbox, which only reports their answers; the
    verdict is computed here (:mod:`veriplan.methods.autotos.judge`). Whatever
    the code does in the sandbox ends as a failure category, never an error of
    veriplan; the values of configured secrets never appear in what comes back
    (``solved``: see :func:`judge.evaluate`; it gets each result scrubbed too)."""
    limit, search = config.call_limit, config.search_limit
    if mode == "goal_tests":
        out = judge.goal_tests(domain, goal, payload["instances"], limit)
    elif mode == "completeness":
        out = judge.completeness(domain, succ or "", payload["pairs"], limit)
    elif mode == "soundness":
        out = judge.soundness(domain, succ or "", goal, payload["instances"], limit, search,
                              payload.get("partial", True))
    elif mode == "evaluate":
        out = judge.evaluate(domain, succ or "", goal, payload["instances"], limit, search,
                             payload.get("checks", False),
                             None if solved is None else
                             lambda k, r, values=secret_values(): solved(k, scrub(r, values)))
    else:
        raise ValueError(f"unknown AutoToS check {mode!r}")
    return scrub(out)


def evaluate(domain: SearchDomain, data: DomainData, succ: str, goal: str, config: Config,
             checks: bool = False, strict: bool | None = None) -> Evaluation:
    """Solve the evaluation instances with the components and validate each
    solution here (and optimality for BFS where known). As in the authors'
    evaluation the per-transition checks are off (``checks``: on, for the
    reference run); an instance counts when it is solved and its solution
    validates, by the paper's validation (``strict``, default
    ``config.strict_validation``: also every step of the solution)."""
    strict = config.strict_validation if strict is None else strict
    instances = data.evaluation[: config.eval_limit or None]
    by_id = {i.id: i for i in instances}
    verdicts: dict[int, str | None] = {}  # validated while the sandbox searches on

    def validate(k: int, r: SearchResult) -> None:
        if r["path"] is not None:
            verdicts[k] = domain.validate(by_id[r["id"]], r["path"], strict)

    start = time.perf_counter()
    out = check(domain, "evaluate", succ, goal, config, solved=validate, checks=checks,
                instances=_payload_instances(instances))
    seconds = time.perf_counter() - start
    if out.get("failure"):
        return {"accuracy": 0.0, "solved": 0, "valid": 0, "optimal": 0,
                "instances": len(instances), "seconds": seconds, "failure": out["failure"],
                "categories": {out["failure"]["category"]: len(instances)}}
    valid = optimal = solved = 0
    categories: Counter = Counter()
    invalid_examples = []
    for k, r in enumerate(out["results"]):
        if r["failure"]:
            categories[r["failure"]["category"]] += 1
            continue
        if r["path"] is None:
            categories["no_solution"] += 1
            continue
        solved += 1
        inst = by_id[r["id"]]
        problem = verdicts[k] if k in verdicts else domain.validate(inst, r["path"], strict)
        if problem is not None:
            categories["invalid_solution"] += 1
            if len(invalid_examples) < 3:
                invalid_examples.append({"id": r["id"], "problem": problem})
            continue
        valid += 1
        want = inst.meta.get("optimal")
        if domain.optimal and domain.algorithm == "bfs" and want is not None:
            if len(r["path"]) - 1 == want:
                optimal += 1
            else:
                categories["not_optimal"] += 1
        else:
            optimal += 1
    good = optimal if domain.optimal else valid
    return {"accuracy": good / len(instances) if instances else 0.0, "solved": solved,
            "valid": valid, "optimal": optimal, "instances": len(instances),
            "seconds": seconds, "categories": dict(categories),
            "invalid_examples": invalid_examples,
            "calls": sum(r["calls"] for r in out["results"])}


@dataclass
class Chat:
    """One conversation per function, as the feedback refers to earlier fixes."""

    role: str
    messages: list[Message]
    calls: int = 0
    code: str | None = None


# Figure 3's phases: which feedback a call answered.
PHASES = ("goal", "soundness", "completeness")


@dataclass
class LoopRecord:
    domain: str
    status: str = "running"  # passed / budget_exhausted / context_exceeded
    calls: dict[str, int] = field(default_factory=dict)
    categories: dict[str, int] = field(default_factory=dict)  # failures found, by category
    # calls made in answer to feedback, by phase: on the goal test (Step 2, or a
    # non-goal the search stopped at), on the successor function's soundness
    # (Steps 1-3), on its completeness (Step 4); the paper's Figure 3
    feedback: dict[str, int] = field(default_factory=lambda: dict.fromkeys(PHASES, 0))
    # every prompt, answer and check: {"kind": "call" | "failure" | "check", ...}
    steps: list[dict[str, JSONValue]] = field(default_factory=list)
    accuracy: dict[str, Evaluation] = field(default_factory=dict)  # initial / sound / final
    succ_code: str | None = None
    goal_code: str | None = None
    seconds: float = 0.0
    partial_check: bool = True  # the run's setting: "w/ val" (True) or "w/o val"


class _Budget(Exception):
    pass


class _ContextFull(Exception):
    pass


def run_loop(domain: SearchDomain, data: DomainData, llm: LLM, config: Config = Config(),
             observer: Observer | None = None) -> LoopRecord:
    emit = observer or quiet
    start = time.perf_counter()
    rec = LoopRecord(domain.name, partial_check=config.partial_check)
    system = Message("system", _text("system.txt").strip())
    chats = {r: Chat(r, [system, Message("user", domain.prompt(r))]) for r in ("succ", "goal")}

    def ask(chat: Chat, phase: str | None) -> None:
        """One call in ``chat``; ``phase`` names the feedback it answers (None:
        Step 1's first request)."""
        total = sum(c.calls for c in chats.values())
        if chat.calls >= config.max_calls_per_function or total >= config.max_calls:
            raise _Budget
        chat.calls += 1
        if phase is not None:
            rec.feedback[phase] += 1
        try:
            resp = llm.complete(LLMRequest(tuple(chat.messages), temperature=config.temperature,
                                           max_tokens=config.max_tokens, seed=config.seed))
        except BadRequestError as e:  # the conversation outgrew the model's context
            rec.steps.append({"kind": "stop", "function": chat.role, "reason": str(e)})
            raise _ContextFull from None
        chat.messages.append(Message("assistant", resp.text))
        rec.steps.append({"kind": "call", "function": chat.role, "phase": phase,
                          "prompt": chat.messages[-2].content, "response": resp.text,
                          "finish_reason": resp.finish_reason,
                          "prompt_tokens": resp.prompt_tokens,
                          "completion_tokens": resp.completion_tokens})
        emit(Event("call", f"{chat.role} call {chat.calls}", chat.calls,
                   data={"function": chat.role, "calls": chat.calls}))
        chat.code = function_code(resp.text)
        if chat.code is None:
            again = phase or ("goal" if chat.role == "goal" else "soundness")
            fail(chat, {"category": "parse_error", "message": "the answer has no Python "
                        "function", "evidence": {}}, again)
            ask(chat, again)

    def fail(chat: Chat, failure: FailureData, phase: str) -> None:
        rec.categories[failure["category"]] = rec.categories.get(failure["category"], 0) + 1
        text = feedback(failure, domain)
        chat.messages.append(Message("user", text))
        rec.steps.append({"kind": "failure", "function": chat.role, "phase": phase, **failure,
                          "feedback": text})
        emit(Event("failure", f"{chat.role}: {failure['category']}: "
                   f"{failure.get('message', '')}", ok=False, data=failure))

    def feed_back(failure: FailureData, step: str) -> None:
        """Send ``failure`` to the conversation of the function it is about,
        and ask that function again."""
        nonlocal goal_tested
        role = _role(failure)
        phase = "goal" if role == "goal" else step
        if role == "goal":
            goal_tested = False
        fail(chats[role], failure, phase)
        ask(chats[role], phase)

    def run_check(mode: str, **payload: Unpack[CheckPayload]) -> FailureData | None:
        out = check(domain, mode, chats["succ"].code, chats["goal"].code,
                    config, **payload)
        rec.steps.append({"kind": "check", "mode": mode, "failure": out.get("failure")})
        bad = out.get("failure")
        emit(Event("check", f"{mode}: " + (bad["category"] if bad else "passed"), ok=not bad,
                   data={"mode": mode, "failure": bad}))
        return out.get("failure")

    goal_units = ([{"id": g.id, "init": g.init, "meta": {**g.meta, "expected": True}}
                   for g in data.goals] +
                  [{"id": g.id, "init": g.init, "meta": {**g.meta, "expected": False}}
                   for g in data.non_goals])
    examples = _payload_instances(data.examples[: config.examples])
    pairs = [{"state": p[0], "successors": p[1], "meta": p[2] if len(p) > 2 else {}}
             for p in data.successors]

    def progress(point: str) -> None:
        if config.evaluate_progress and point not in rec.accuracy:
            rec.accuracy[point] = evaluate(domain, data, chats["succ"].code or "",
                                           chats["goal"].code or "", config)
            emit(Event("accuracy", f"accuracy at {point}: {rec.accuracy[point]['accuracy']:.3f}",
                       data={"point": point, **rec.accuracy[point]}))

    try:
        ask(chats["succ"], None)  # Step 1
        ask(chats["goal"], None)
        progress("initial")
        goal_tested = False  # has the current goal test passed Step 2?
        while True:
            # Step 2, for each new goal test (a successor failure resumes at Step 3)
            if not goal_tested:
                failure = run_check("goal_tests", instances=goal_units)
                if failure:
                    feed_back(failure, "goal")
                    continue
                goal_tested = True
            # Step 3: "w/o val" replaces only the partial soundness check
            failure = run_check("soundness", instances=examples, partial=config.partial_check)
            if failure:
                feed_back(failure, "soundness")
                continue
            progress("sound")
            if config.completeness:  # Step 4
                failure = run_check("completeness", pairs=pairs)
                if failure:
                    feed_back(failure, "completeness")
                    continue
            rec.status = "passed"
            break
    except _Budget:
        rec.status = "budget_exhausted"
    except _ContextFull:
        rec.status = "context_exceeded"
    rec.calls = {r: c.calls for r, c in chats.items()}
    rec.succ_code, rec.goal_code = chats["succ"].code, chats["goal"].code
    if rec.succ_code and rec.goal_code:
        rec.accuracy["final"] = evaluate(domain, data, rec.succ_code, rec.goal_code, config)
    rec.seconds = time.perf_counter() - start
    return rec


def _role(failure: FailureData) -> str:
    """Which function a failure is about (and whose conversation gets it)."""
    named = failure.get("evidence", {}).get("function")
    if named in ("succ", "goal"):
        return named
    return "goal" if failure["category"].startswith("goal") else "succ"


def reference(domain: SearchDomain, data: DomainData, config: Config = Config()
              ) -> Evaluation:
    """The hand-written components through the same harness, every check on,
    every solution validated step by step."""
    return evaluate(domain, data, domain.reference_code("succ"), domain.reference_code("goal"),
                    config, checks=True, strict=True)


def solve(problem: AutoToSProblem, llm: LLM, config: Config = Config(), *,
          observer: Observer | None = None) -> AutoToSResult:
    """One AutoToS run on ``problem.domain``; see :class:`AutoToSResult` for
    what "verified" means here."""
    domain = get_domain(problem.domain)
    data = domain.load(Path(problem.data_dir))
    run = Run("autotos", llm)
    rec = run_loop(domain, data, run.llm, config, observer)
    final = rec.accuracy.get("final", {})
    verified = final.get("accuracy") == 1.0
    failure = None if verified else (AutoToSFailure.INACCURATE if rec.status == "passed"
                                     else AutoToSFailure(rec.status))
    accuracy = {k: v.get("accuracy") for k, v in rec.accuracy.items()}
    return run.result(
        cls=AutoToSResult, verified=verified, plan=[], attempts=sum(rec.calls.values()),
        failure=failure, domain=problem.domain, accuracy=accuracy,
        solved=final.get("valid", 0), instances=final.get("instances", 0),
        succ_code=rec.succ_code, goal_code=rec.goal_code,
        metrics=metrics(rec),
        transcript=transcript(rec),
        last_diagnosis="" if verified else f"final accuracy {final.get('accuracy')}")


def metrics(rec: LoopRecord) -> LoopMetrics:
    """What the report's AutoToS tables read (Table 1, Figures 2-4)."""
    return {"domain": rec.domain, "status": rec.status, "calls": rec.calls,
            "categories": rec.categories, "feedback": rec.feedback,
            "partial_check": rec.partial_check,
            "accuracy": {k: v.get("accuracy") for k, v in rec.accuracy.items()}}


def solve_domain(name: str, data_dir: str | Path, llm: LLM, config: Config = Config(), *,
                 observer: Observer | None = None) -> AutoToSResult:
    return solve(AutoToSProblem(name, Path(data_dir)), llm, config, observer=observer)


def transcript(rec: LoopRecord) -> list[Entry]:
    """The loop's steps as entries: each model call, with the verdict of the
    check that judged its code (the failure fed back, or passing all checks)."""
    out: list[Entry] = []
    last: dict[str, Entry] = {}
    for step in rec.steps:
        kind = step.get("kind")
        if kind == "call":
            entry = Entry(sum(e.call is not None for e in out) + 1, step["function"],
                          step.get("prompt", ""), step.get("response", ""))
            out.append(entry)
            last[step["function"]] = entry
        elif kind == "failure":
            entry = last.get(step["function"])
            text = f"{step['category']}: {step.get('message', '')}".strip()
            if entry is not None and not entry.verdict:
                entry.ok, entry.verdict = False, text
                entry.data["feedback"] = step.get("feedback", "")
            else:
                out.append(Entry(None, step["function"], ok=False, verdict=text))
        elif kind == "stop":
            out.append(Entry(None, step.get("function", ""), ok=False,
                             verdict=f"stopped: {step.get('reason', '')}"))
    if rec.status == "passed":
        for entry in last.values():
            if not entry.verdict:
                entry.ok, entry.verdict = True, "passed every check"
    for entry in out:
        if entry.call is not None and not entry.verdict:
            entry.verdict = f"superseded (run ended: {rec.status})" if rec.status != "passed" \
                else "replaced by a later answer"
    return out


def record_dict(rec: LoopRecord) -> dict[str, JSONValue]:
    return asdict(rec)
