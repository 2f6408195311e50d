"""The MCP tools' work, in plain Python (no SDK): each function takes a
:class:`~veriplan.mcp.config.ServerConfig` and the tool's arguments and returns
its document (:mod:`veriplan.mcp.models`), or raises a
:class:`~veriplan.errors.VeriplanError` whose message the client reads.

Domains, problems and configs come as text or as a path inside the server's
roots; every text is bounded by the server's size limit, and files are read
through :mod:`veriplan.pddl.inputs` (regular files only, within the limit).
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Literal

from veriplan.core.atom import Atom
from veriplan.core.atom import Literal as CoreLiteral
from veriplan.core.budget import Budget, BudgetExceeded
from veriplan.core.verdict import Verdict
from veriplan.errors import PDDLParseError, PDDLSemanticError, SourceError, VeriplanError
from veriplan.mcp import models as M
from veriplan.mcp.config import ServerConfig, ToolInputError
from veriplan.pddl import inputs

if TYPE_CHECKING:
    from veriplan.core.operator import Operator
    from veriplan.core.plan import Step
    from veriplan.pddl.ast import Domain
    from veriplan.pddl.task import Task
    from veriplan.planio.parsed import ParsedPlan, UnreadLine
    from veriplan.planio.planbench import PlanBenchConfig
    from veriplan.verify.batch import BatchVerdict, ItemError
    from veriplan.verify.validator import ValidationResult

PlanText = str | list[str]
PlanFormat = Literal["pddl", "planbench"]
#: The most ground actions a repair hint names for one literal.
HINT_ACTIONS = 5
#: The most ground actions (about 450 bytes each) and search states one call may hold.
CALL_MAX_GROUND_ACTIONS = 250_000
CALL_MAX_STATES = 1_000_000
#: The longest validate_plan grounds the task for its repair hints (seconds; at most
#: half the time the call has left): past it, the hints name no ground actions.
HINT_SECONDS = 2.0


class Deadline:
    """A call's time limit, checked where the work can stop cleanly."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.end = time.monotonic() + seconds
        self.cancelled = threading.Event()

    @property
    def left(self) -> float:
        return max(0.0, self.end - time.monotonic())

    def expired(self) -> bool:
        return self.cancelled.is_set() or time.monotonic() >= self.end

    def budget(self, seconds: float | None = None) -> Budget:
        """The call's budget for grounding and search: this deadline (or ``seconds``
        from now, if sooner), cancelled with the call, within the per-call caps."""
        end = self.end if seconds is None else min(self.end, time.monotonic() + seconds)
        return Budget(max_seconds=self.seconds if seconds is None else seconds, deadline=end,
                      cancel=self.cancelled, max_ground_actions=CALL_MAX_GROUND_ACTIONS,
                      max_states=CALL_MAX_STATES)

    def check(self, what: str) -> None:
        if self.cancelled.is_set():
            raise ToolInputError(f"{what}: cancelled")
        if time.monotonic() >= self.end:
            raise ToolInputError(f"{what} took longer than the server's limit of "
                                 f"{self.seconds:g} s (--time-limit)")


# ----- reading inputs ----------------------------------------------------------------------
class _TextCache:
    """Parsed inline texts by content (sha256), least recently used dropped."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._items: OrderedDict[tuple[object, ...], object] = OrderedDict()

    def get(self, key: tuple[object, ...], build: Callable[[], object]) -> object:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        value = build()
        with self._lock:
            self._items[key] = value
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return value


_DOMAINS = _TextCache(32)
_TASKS = _TextCache(128)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def one_of(cfg: ServerConfig, text: str | None, path: str | None, what: str,
           required: bool = True) -> tuple[str, str] | None:
    """``("text", TEXT)`` or ``("path", RESOLVED)`` from a tool's pair of arguments."""
    if text is not None and path is not None:
        raise ToolInputError(f"give the {what} as text or as a path, not both")
    if text is not None:
        if not isinstance(text, str):
            raise ToolInputError(f"the {what} must be text")
        return "text", cfg.check_text(text, what)
    if path is not None:
        return "path", cfg.roots.resolve(path, what)
    if required:
        raise ToolInputError(f"the {what} is missing: give it as text or as a path")
    return None


def read_file(cfg: ServerConfig, full: str, what: str) -> str:
    try:
        return inputs.read_text(full, what=what, max_bytes=cfg.max_bytes)
    except VeriplanError as exc:
        raise ToolInputError(_shown(cfg, str(exc))) from None


def _shown(cfg: ServerConfig, message: str) -> str:
    """A message with the server's root directories written as ``<root>``."""
    for root in cfg.roots.dirs:
        message = message.replace(root + "/", "").replace(root, "<root>")
    return message


def load_domain(cfg: ServerConfig, given: tuple[str, str]) -> Domain:
    from veriplan.pddl.parser import parse_domain
    from veriplan.pddl.task import cached_domain

    kind, value = given
    strict = not cfg.lenient
    try:
        if kind == "path":
            return cached_domain(value, strict=strict, max_bytes=cfg.max_bytes)
        return _DOMAINS.get(("d", _digest(value), strict),  # type: ignore[return-value]
                            lambda: parse_domain(value, file="domain", strict=strict))
    except (SourceError, PDDLSemanticError) as exc:
        raise ToolInputError(_shown(cfg, str(exc))) from None


def load_task(cfg: ServerConfig, domain: str | None, domain_path: str | None,
              problem: str | None, problem_path: str | None) -> Task:
    from veriplan.pddl.parser import parse_problem
    from veriplan.pddl.task import Task

    d = one_of(cfg, domain, domain_path, "domain")
    p = one_of(cfg, problem, problem_path, "problem")
    assert d is not None and p is not None
    dom = load_domain(cfg, d)
    strict = not cfg.lenient
    if p[0] == "path":
        from veriplan.verify.batch import cached_task

        try:
            if d[0] == "path":
                return cached_task(d[1], p[1], strict=strict, max_bytes=cfg.max_bytes)
            text = read_file(cfg, p[1], "problem")
        except (SourceError, PDDLSemanticError) as exc:
            raise ToolInputError(_shown(cfg, str(exc))) from None
    else:
        text = p[1]

    def build() -> Task:
        return Task(dom, parse_problem(text, dom, file="problem", strict=strict))

    try:
        return _TASKS.get(("t", id(dom), _digest(text), strict), build)  # type: ignore[return-value]
    except (SourceError, PDDLSemanticError) as exc:
        raise ToolInputError(_shown(cfg, str(exc))) from None


def load_config(cfg: ServerConfig, text: str | None, path: str | None) -> PlanBenchConfig | None:
    given = one_of(cfg, text, path, "PlanBench config", required=False)
    if given is None:
        return None
    from veriplan.planio.planbench import PlanBenchConfig

    body = given[1] if given[0] == "text" else read_file(cfg, given[1], "PlanBench config")
    try:
        return PlanBenchConfig.from_text(body, file="planbench_config")
    except VeriplanError as exc:
        raise ToolInputError(_shown(cfg, str(exc))) from None


def read_plan(cfg: ServerConfig, task: Task, plan: PlanText | None, plan_path: str | None,
              fmt: PlanFormat, config: PlanBenchConfig | None) -> ParsedPlan:
    from veriplan.planio import parse_plan

    if isinstance(plan, list):
        if not all(isinstance(s, str) for s in plan):
            raise ToolInputError("the plan must be text or a list of lines (strings)")
        plan = "\n".join(plan)
    given = one_of(cfg, plan, plan_path, "plan")
    assert given is not None
    text = given[1] if given[0] == "text" else read_file(cfg, given[1], "plan")
    if fmt not in ("pddl", "planbench"):
        raise ToolInputError(f"unknown plan format {fmt!r}: use 'pddl' or 'planbench'")
    if fmt == "planbench" and config is None:
        raise ToolInputError("format 'planbench' needs a PlanBench config (planbench_config "
                             "or planbench_config_path)")
    return parse_plan(text, task, format=fmt, config=config)


# ----- documents ---------------------------------------------------------------------------
def _lines(items: Sequence[UnreadLine]) -> list[M.LineAside]:
    return [M.LineAside(line=u.line, text=u.text, reason=u.reason) for u in items]


def _failed(r: ValidationResult) -> M.FailedStep | None:
    if r.failed_step is None or r.error is None or str(r.error) == "unread":
        return None
    return M.FailedStep(index=r.failed_step, action=str(r.action), kind=str(r.error),
                        detail=r.detail, unsatisfied=[u.pddl() for u in r.unsatisfied])


def _states(task: Task, r: ValidationResult, limit: int) -> tuple[list[M.StateDoc], bool]:
    trace = r.trace or ()
    out = []
    for i, atoms in enumerate(trace[:limit]):
        action = str(r.plan[i - 1]) if i else None
        out.append(M.StateDoc(step=i, action=action, atoms=list(atoms)))
    return out, len(trace) > limit


def _state_before(task: Task, steps: Sequence[Step], k: int) -> int:
    """The state before step ``k`` (1-based) of steps that execute up to it."""
    state = task.init
    for step in steps[:k - 1]:
        state = task.apply(task.operator(step.name, step.args), state)
    return state


def repair_hints(task: Task, r: ValidationResult, budget: Budget | None = None
                 ) -> list[M.RepairHint]:
    """For each false precondition of the failing step and each unmet goal literal:
    the action schemas whose effects make it true, up to :data:`HINT_ACTIONS`
    ground actions that do and can run in the state where it is missing, and up to
    as many that do but cannot run there yet (their own preconditions come first).
    The ground actions are left out when grounding the task is over ``budget``."""
    from veriplan.pddl.ast import Literal as AstLiteral

    wanted: list[tuple[CoreLiteral, int | None]] = []
    if r.failed_step is not None and r.unsatisfied:
        wanted += [(u, r.failed_step) for u in r.unsatisfied if isinstance(u, CoreLiteral)]
    wanted += [(g, None) for g in r.unmet_goals if isinstance(g, CoreLiteral)]
    if not wanted:
        return []
    makers: dict[tuple[str, bool], list[str]] = {}
    for a in task.domain.actions:
        for e in a.effects:
            if isinstance(e, AstLiteral):
                names = makers.setdefault((e.atom.pred, e.positive), [])
                if a.name not in names:
                    names.append(a.name)
    states: dict[int | None, int] = {}
    ops: tuple[Operator, ...] | None = None
    out = []
    for lit, step in wanted:
        if step not in states:
            k = r.steps_executed + 1 if step is None else step
            states[step] = _state_before(task, r.plan, k)
        state = states[step]
        bit = task.facts.find(Atom(lit.atom.pred, tuple(lit.atom.args)))
        ground: list[str] = []
        later: list[str] = []
        if bit is not None:
            if ops is None:
                try:
                    ops = task.ground(budget)
                except BudgetExceeded:
                    ops = ()
            for op in ops:
                if len(ground) >= HINT_ACTIONS:
                    break
                if (op.add if lit.positive else op.delete) >> bit & 1:
                    if op.applicable(state):
                        ground.append(str(op))
                    elif len(later) < HINT_ACTIONS:
                        later.append(str(op))
        out.append(M.RepairHint(literal=lit.pddl(), before_step=step,
                                actions=makers.get((lit.atom.pred, lit.positive), []),
                                ground_actions=ground, not_yet_applicable=later))
    return out


def verdict_doc(task: Task, parsed: ParsedPlan | None, r: ValidationResult, *,
                hints: bool = True, max_states: int = 0,
                budget: Budget | None = None) -> M.ValidatePlanDoc:
    j = r.judgement()
    states, cut = _states(task, r, max_states) if r.trace is not None else (None, False)
    return M.ValidatePlanDoc(
        verdict=j.verdict.value, valid=j.verdict is Verdict.VALID, scope=j.scope.value,
        steps=[str(s) for s in r.plan], steps_executed=r.steps_executed,
        unread=_lines(r.unread), prose=_lines(parsed.prose if parsed is not None else ()),
        failed_step=_failed(r), unmet_goals=[g.pddl() for g in r.unmet_goals],
        findings=[M.FindingDoc(**f.to_dict()) for f in j.findings],  # type: ignore[arg-type]
        repair_hints=repair_hints(task, r, budget) if hints and not r.valid and not task.numeric
        else [],
        cost=r.cost, metric=r.metric.value if r.metric is not None else None,
        violations=r.preferences.violated() if r.preferences is not None else None,
        constraints=[c.constraint for c in r.constraints],
        feedback=r.feedback(), states=states, states_truncated=cut)


# ----- the tools ---------------------------------------------------------------------------
def validate_plan(cfg: ServerConfig, deadline: Deadline, *, domain: str | None = None,
                  domain_path: str | None = None, problem: str | None = None,
                  problem_path: str | None = None, plan: PlanText | None = None,
                  plan_path: str | None = None, format: PlanFormat = "pddl",
                  planbench_config: str | None = None,
                  planbench_config_path: str | None = None,
                  trace: bool = False, tolerance: float | None = None) -> M.ValidatePlanDoc:
    from veriplan.verify import validate_plan as check

    t = _tolerance("validate_plan", tolerance)
    task = load_task(cfg, domain, domain_path, problem, problem_path)
    config = load_config(cfg, planbench_config, planbench_config_path)
    parsed = read_plan(cfg, task, plan, plan_path, format, config)
    deadline.check("validate_plan")
    r = _judge(check, task, parsed, trace, t)
    return verdict_doc(task, parsed, r, max_states=cfg.max_results,
                       budget=deadline.budget(min(deadline.left / 2, HINT_SECONDS)))


def _number(tool: str, name: str, value: object) -> float | int:
    """Argument ``name`` of ``tool``, range-checked by the contract
    (:mod:`veriplan.core.arguments`) as every face checks it."""
    from veriplan.core.arguments import TOOLS, ArgumentError

    try:
        return TOOLS[tool].number(name, value)
    except ArgumentError as exc:
        raise ToolInputError(exc.message, exc.key, exc.record) from None


def _tolerance(tool: str, tolerance: float | None) -> float:
    """The call's tolerance (VAL's ``-t``; default 0.01)."""
    from veriplan.verify.happening import TOLERANCE

    return TOLERANCE if tolerance is None else float(_number(tool, "tolerance", tolerance))


def _judge(check: Callable[..., ValidationResult], task: Task, parsed: object,
           trace: bool, tolerance: float | None = None) -> ValidationResult:
    try:
        if tolerance is not None:
            return check(task, parsed, trace=trace, tolerance=tolerance)
        return check(task, parsed, trace=trace)
    except PDDLSemanticError as exc:  # an action that cannot be grounded within the budget
        raise ToolInputError(str(exc)) from None


def simulate(cfg: ServerConfig, deadline: Deadline, *, domain: str | None = None,
             domain_path: str | None = None, problem: str | None = None,
             problem_path: str | None = None, plan: PlanText | None = None,
             plan_path: str | None = None, format: PlanFormat = "pddl",
             planbench_config: str | None = None, planbench_config_path: str | None = None,
             max_states: int | None = None,
             tolerance: float | None = None) -> M.SimulateDoc:
    from veriplan.verify import validate_plan as check

    wanted = None if max_states is None else int(_number("simulate", "max_states", max_states))
    limit = min(cfg.max_results, cfg.max_results if wanted is None else wanted)
    t = _tolerance("simulate", tolerance)
    task = load_task(cfg, domain, domain_path, problem, problem_path)
    config = load_config(cfg, planbench_config, planbench_config_path)
    parsed = read_plan(cfg, task, plan, plan_path, format, config)
    deadline.check("simulate")
    r = _judge(check, task, parsed, True, t)
    states, cut = _states(task, r, limit)
    return M.SimulateDoc(verdict=r.judgement().verdict.value, steps_executed=r.steps_executed,
                         failed_step=_failed(r), unmet_goals=[g.pddl() for g in r.unmet_goals],
                         states=states, truncated=cut, feedback=r.feedback())


def applicable_actions(cfg: ServerConfig, deadline: Deadline, *, domain: str | None = None,
                       domain_path: str | None = None, problem: str | None = None,
                       problem_path: str | None = None, plan: PlanText | None = None,
                       offset: int = 0, limit: int = 100) -> M.ApplicableActionsDoc:
    from veriplan.verify import validate_plan as check

    offset = int(_number("applicable_actions", "offset", offset))
    limit = min(int(_number("applicable_actions", "limit", limit)), cfg.max_results)
    task = load_task(cfg, domain, domain_path, problem, problem_path)
    steps = 0
    state = task.init
    if plan is not None:
        parsed = read_plan(cfg, task, plan, None, "pddl", None)
        r = _judge(check, task, parsed, False)
        if r.unread or r.failed_step is not None:
            raise ToolInputError(f"the plan does not execute to its end: {r.feedback()}")
        steps = len(parsed.steps)
        state = _state_before(task, parsed.steps, steps + 1)
    deadline.check("applicable_actions")
    try:
        ops = task.ground(deadline.budget())
    except PDDLSemanticError as exc:
        raise ToolInputError(str(exc)) from None
    found: list[str] = []
    total = 0
    for n, op in enumerate(ops):
        if n % 4096 == 0:
            deadline.check("applicable_actions")
        if op.applicable(state):
            if offset <= total < offset + limit:
                found.append(str(op))
            total += 1
    nxt = offset + limit if total > offset + limit else None
    return M.ApplicableActionsDoc(after_steps=steps,
                                  state=[a.pddl() for a in task.atoms(state)],
                                  actions=found, offset=offset, total=total, next_offset=nxt)


def solve_classical(cfg: ServerConfig, deadline: Deadline, *, domain: str | None = None,
                    domain_path: str | None = None, problem: str | None = None,
                    problem_path: str | None = None, planner: str = "fd",
                    time_limit: float | None = None) -> M.SolveClassicalDoc:
    from veriplan.planners.classical import PLANNERS
    from veriplan.planners.classical import solve_classical as solve

    if planner not in PLANNERS.names():
        raise ToolInputError(f"unknown planner {planner!r}: use one of "
                             f"{', '.join(PLANNERS.names())}")
    if time_limit is not None:
        time_limit = float(_number("solve_classical", "time_limit", time_limit))
    task = load_task(cfg, domain, domain_path, problem, problem_path)
    seconds = deadline.left * 0.9 if time_limit is None else min(time_limit, deadline.left * 0.9)
    if seconds <= 0:
        raise ToolInputError(f"solve_classical has no time left within the server's limit of "
                             f"{deadline.seconds:g} s (--time-limit)")
    try:
        r = solve(task, planner, time_limit=seconds, budget=deadline.budget(seconds))
    except PDDLSemanticError as exc:
        raise ToolInputError(str(exc)) from None
    v = r.validation
    return M.SolveClassicalDoc(
        planner=r.planner, status=r.status, solved=r.solved,
        plan=[str(s) for s in r.plan] if r.plan is not None else None,
        seconds=round(r.seconds, 4), expanded=r.expanded,
        verdict=v.judgement().verdict.value if v is not None else None,
        feedback=v.feedback() if v is not None else None)


def check_task(cfg: ServerConfig, deadline: Deadline, *, domain: str | None = None,
               domain_path: str | None = None, problem: str | None = None,
               problem_path: str | None = None) -> M.CheckTaskDoc:
    from veriplan.errors import UnsupportedRequirementError
    from veriplan.pddl.parser import SUPPORTED_REQUIREMENTS, parse_domain, parse_problem
    from veriplan.pddl.task import Task

    d = one_of(cfg, domain, domain_path, "domain")
    p = one_of(cfg, problem, problem_path, "problem", required=False)
    assert d is not None
    errors: list[M.TaskError] = []
    supported = True
    strict = not cfg.lenient
    dom = prob = None
    counts: dict[str, int] = {}

    def error(which: Literal["domain", "problem"], exc: Exception) -> None:
        nonlocal supported
        if isinstance(exc, UnsupportedRequirementError):
            supported = False
        loc = exc if isinstance(exc, SourceError) else None
        errors.append(M.TaskError(
            file=which, message=_shown(cfg, getattr(exc, "message", str(exc))),
            line=loc.line if loc else None, col=loc.col if loc else None,
            requirement=getattr(exc, "requirement", None)))

    text = d[1] if d[0] == "text" else read_file(cfg, d[1], "domain")
    try:
        dom = parse_domain(text, file="domain", strict=strict)
    except (PDDLParseError, PDDLSemanticError) as exc:
        error("domain", exc)
    if dom is not None:
        counts.update(types=len(dom.types), predicates=len(dom.predicates),
                      actions=len(dom.actions), constants=len(dom.constants))
    if dom is not None and p is not None:
        ptext = p[1] if p[0] == "text" else read_file(cfg, p[1], "problem")
        try:
            prob = parse_problem(ptext, dom, file="problem", strict=strict)
            Task(dom, prob)
            counts.update(objects=len(prob.objects), init=len(prob.init))
        except (PDDLParseError, PDDLSemanticError) as exc:
            error("problem", exc)
    deadline.check("check_task")
    return M.CheckTaskDoc(
        ok=not errors, supported=supported and not any(e.requirement for e in errors),
        errors=errors, domain=dom.name if dom else None, problem=prob.name if prob else None,
        requirements=list(dom.requirements) if dom else [],
        supported_requirements=sorted(SUPPORTED_REQUIREMENTS), counts=counts)


def validate_batch(cfg: ServerConfig, deadline: Deadline, items: Sequence[Mapping[str, object]],
                   *, domain_path: str | None = None, problem_path: str | None = None,
                   tolerance: float | None = None,
                   progress: Callable[[int, int], None] | None = None) -> M.ValidateBatchDoc:
    """Many plans through :func:`veriplan.verify.batch.validate_many`: paths are
    resolved inside the roots first (an item with one outside is not judged, its
    record says why); ``domain_path`` and ``problem_path`` are the items' defaults."""
    from veriplan.verify.batch import BatchVerdict, ItemError, validate_many

    t = _tolerance("validate_batch", tolerance)
    if len(items) > cfg.max_items:
        raise ToolInputError(f"{len(items)} items are more than the server's limit of "
                             f"{cfg.max_items} a call (--max-items)")
    total = len(items)
    prepared: list[Mapping[str, object] | ItemError] = []
    for item in items:
        prepared.append(_prepare(cfg, item, domain_path, problem_path))
    records: list[M.BatchRecordDoc] = []
    counts = {"valid": 0, "invalid": 0, "unjudged": 0}
    stopped = None

    def judged() -> Iterator[BatchVerdict]:
        """Every item's verdict in order: the refused ones as prepared, the others
        from one validate_many run (its caches shared across the call)."""
        good = (it for it in prepared if not isinstance(it, ItemError))
        verdicts = validate_many(good, strict=not cfg.lenient, max_bytes=cfg.max_bytes,
                                 tolerance=t)
        for n, item in enumerate(prepared, 1):
            if isinstance(item, ItemError):
                yield BatchVerdict(n, _ident(items[n - 1]), error=item)
            else:
                v = next(verdicts)
                yield BatchVerdict(n, v.id, result=v.result, error=v.error)

    for n, v in enumerate(judged(), 1):
        if deadline.expired():
            stopped = (f"the time limit of {deadline.seconds:g} s (--time-limit) after "
                       f"{n - 1} of {total} items")
            break
        records.append(_record(cfg, v))
        key = ("unjudged" if v.result is None else "valid" if v.result.valid else "invalid")
        counts[key] += 1
        if progress is not None:
            progress(n, total)
    return M.ValidateBatchDoc(total=total, judged=counts["valid"] + counts["invalid"],
                              valid=counts["valid"], invalid=counts["invalid"],
                              unjudged=counts["unjudged"], stopped=stopped, records=records)


def _ident(item: object) -> str | int | float | bool | None:
    ident = item.get("id") if isinstance(item, Mapping) else None
    return ident if isinstance(ident, str | int | float | bool) else None


def _prepare(cfg: ServerConfig, item: object, domain_path: str | None,
             problem_path: str | None) -> Mapping[str, object] | ItemError:
    """An item as :func:`~veriplan.verify.batch.validate_many` reads it: its own keys
    (an item of a ``validate --batch`` line, :data:`veriplan.core.arguments.BATCH_ITEM`,
    older names too), each path resolved inside the roots, the call's domain and
    problem where it names none; or the error of an item that is not judged."""
    from veriplan.core.arguments import BATCH_ITEM, ArgumentError
    from veriplan.verify.batch import ItemError

    if not isinstance(item, Mapping):
        return ItemError("item", "an item must be an object")
    try:
        BATCH_ITEM.check_keys(item)
    except ArgumentError as exc:
        return ItemError("item", exc.message)
    out: dict[str, object] = dict(item)
    out["id"] = _ident(item)
    for key, default in (("domain_path", domain_path), ("problem_path", problem_path)):
        if default is not None and not any(BATCH_ITEM.canonical(k) == key for k in item):
            out[key] = default
    for key in ("domain_path", "problem_path"):
        if not any(BATCH_ITEM.canonical(k) == key for k in out):
            old = {new: o for o, new in BATCH_ITEM.aliases.items()}[key]
            return ItemError("item", f"the item has no '{key}' (or '{old}') (a file path), "
                                     f"and the call gives no default {key}")
    try:
        for key, value in list(out.items()):
            name = BATCH_ITEM.canonical(key)
            if name is None or not name.endswith("_path") or value is None:
                continue
            if not isinstance(value, str) or not value:
                return ItemError("item", f"'{key}' must be a file path (a non-empty "
                                         "string)")
            out[key] = cfg.roots.resolve(value, _WHAT[name])
    except ToolInputError as exc:
        return ItemError("refused", _shown(cfg, str(exc)))
    return out


#: What each path of an item names, in messages.
_WHAT = {"domain_path": "domain", "problem_path": "problem", "plan_path": "plan",
         "planbench_config_path": "PlanBench config"}


def _record(cfg: ServerConfig, v: BatchVerdict) -> M.BatchRecordDoc:
    d = v.to_dict()
    err = d["error"]
    if err is not None:
        err = {k: (_shown(cfg, x) if isinstance(x, str) else x) for k, x in err.items()}
    r = v.result
    return M.BatchRecordDoc(
        index=d["line"], id=d["id"],
        verdict=None if r is None else r.judgement().verdict.value, steps=d["steps"],
        unread=[M.LineAside(**u) for u in d["unread"]], failed_step=d["failed_step"],
        failed_action=d["failed_action"], failure=d["failure"], detail=d["detail"],
        unsatisfied=d["unsatisfied"], unmet_goals=d["unmet_goals"], metric=d["metric"],
        violations=None if r is None or r.preferences is None else r.preferences.violated(),
        constraints=[] if r is None else [c.constraint for c in r.constraints],
        error=err)
