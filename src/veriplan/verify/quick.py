"""The one-pass judge of clean plans: :func:`quick_record` reads and judges a plan
text whose every line is blank or one ``(action arg ...)`` in one pass, without
building the steps, the parsed plan or the result, and writes its record directly;
the same record as :func:`~veriplan.verify.validator.validate_plan` gives through
:func:`~veriplan.verify.records.judged_record`. A numeric task's plan runs on the
compiled steps of :mod:`veriplan.pddl.numeric_code` up to a step they cannot
judge, the general validator resumed from there. Any other plan, and any
classical task with derived predicates, it leaves to the general path (it says
None)."""

from __future__ import annotations

import os
import re
from stat import S_ISREG
from typing import TYPE_CHECKING

from veriplan.core.plan import Step
from veriplan.errors import PDDLSemanticError
from veriplan.pddl.names import CLEAN_LINE
from veriplan.pddl.numeric import Undefined, value
from veriplan.pddl.numeric_code import (
    CompiledStep,
    SlotValues,
    compiled_goal,
    compiled_step,
    never,
    task_slots,
)
from veriplan.verify.consistency import check_step, plainly_well_formed
from veriplan.verify.records import (
    ItemId,
    encode_str,
    id_json,
    json_value,
    judged_record,
    record_text,
    result_record,
)
from veriplan.verify.validator import false_parts, plan_metric, precondition_error

if TYPE_CHECKING:
    from veriplan.core.operator import Operator
    from veriplan.pddl.task import Task

# The plan readers (veriplan.planio) are imported by the first plan that needs them:
# a batch of clean plans does without them (and their start-up).

#: The longest plan text the one-pass judge takes (a longer one takes the general
#: path, whose reader is lean on memory for long texts).
QUICK_MAX = 1 << 16

# "plan" not followed by a letter or digit (see _plan_word)
_PLAN_END = re.compile(r"plan(?![a-z0-9])")


def _plan_word(low: str) -> bool:
    """Whether ``low`` holds "plan" as a word of its own, as
    ``veriplan.planio.pddl_plan._PLAN_WORD`` finds it (``(?<![a-z0-9])plan(?![a-z0-9])``;
    a pattern that begins with the look-behind is tried at every position, ten
    times slower on a plan of "plane1" steps)."""
    for m in _PLAN_END.finditer(low):
        i = m.start()
        if i == 0:
            return True
        c = low[i - 1]
        if not ("a" <= c <= "z" or "0" <= c <= "9"):
            return True
    return False

_BY_TEXT = 4096  # the most step texts a task's memo keeps (then it starts afresh)
_BY_TEXT_SHARED = 1 << 16  # and a domain's


_OPEN_FLAGS = (os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0)
               | getattr(os, "O_CLOEXEC", 0))


def read_quick(path: str, limit: int) -> str | None:
    """The text of plan file ``path`` when it is a regular file of at most ``limit``
    bytes of UTF-8 (a leading byte-order mark dropped), read in one ``read``; None
    for anything else (a missing file, a directory, a pipe, a larger file, one that
    changed size while read, bytes that are not UTF-8): the general path reads it
    then and says why (:func:`veriplan.pddl.inputs.read_text`, which gives the same
    text for every file this reads)."""
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except (OSError, ValueError):  # (ValueError: a path no file can have)
        return None
    try:
        st = os.fstat(fd)
        size = st.st_size
        if not S_ISREG(st.st_mode) or size > limit:
            return None
        data = os.read(fd, size + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    if len(data) != size:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return text[1:] if text[:1] == "\ufeff" else text


def quick_record(task: Task, line: int, ident: ItemId, plan_text: str
                 ) -> tuple[bool, str] | None:
    """The verdict and record (JSON text, input line ``line``, id ``ident``) of
    ``plan_text`` on ``task`` when the plan is clean PDDL (every line blank or one
    ``(action arg ...)``) and the task has no numbers and no derived predicates;
    None otherwise (the general path judges it: the same record). The caller keeps
    plans over :data:`QUICK_MAX` characters from it."""
    if task.domain.temporal:
        return None  # durative actions: the temporal validator's (an untimed step too)
    axioms = task.axioms
    pr = task.problem
    if pr.preferences or pr.constraints or task.domain.preferences or task.domain.constraints:
        return None  # PDDL 3: the general path judges the trajectory
    if axioms is not None and (not task.numeric or axioms.numeric):
        return None  # derived predicates on a classical task, or numeric rules: general
    # (str.islower tests every character's case through Unicode's tables: for an
    # ASCII text, lower-casing it outright costs less and gives the same text)
    low = (plan_text.lower() if plan_text.isascii() or not plan_text.islower()
           else plan_text)
    if "plan" in low and ("__" in low or _plan_word(low)):
        # (clean_text refuses a clean text for these alone: "plan" as a word, which
        # may be a marker's, or "__"; "plan" inside a name, as in "plane1", is neither)
        from veriplan.planio.pddl_plan import clean_text

        if clean_text(plan_text) is None:
            return None  # a plan marker, or "__" (see clean_text)
    lines = low.split("\n")
    if lines[-1][-1:] == "\r":
        return None  # not clean: a "\r" ends no line
    if task.numeric:
        return _numeric_record(task, line, ident, lines)
    memo = task._by_text  # this task's steps
    if memo is None or len(memo) > _BY_TEXT:
        memo = task._by_text = {}
    # The STRIPS steps of an untyped domain, for every task of it: such a step is
    # read and well-formed in a task whose objects hold its arguments.
    shared = None if task.domain.types else task._shared.by_text
    objects = task.objects
    # Every step first, as the reader reads them all before the validator runs:
    # a line that is not clean, or a step the reader would not read as it
    # stands, leaves the plan to the general path (which reads it some other
    # way, or reports the line unread). The memos hold clean lines only.
    ops = []
    for text in lines:
        if shared is not None:
            op = shared.get(text)
            if op is not None:
                for a in op.args:
                    if a not in objects:
                        return None
                ops.append(op)
                continue
        op = memo.get(text)
        if op is None:
            if not text:
                continue
            m = CLEAN_LINE.fullmatch(text)
            if m is None:
                return None
            step = m.group(1)
            if step is None:  # a blank line
                continue
            op = _quick_op(task, step[1:-1], len(ops) + 1)
            if op is None:
                return None
            if shared is not None and op.name in task._templates:
                if len(shared) > _BY_TEXT_SHARED:
                    shared.clear()
                shared[text] = op
            else:
                memo[text] = op
        ops.append(op)
    n = len(ops)
    state = task.init
    for i, op in enumerate(ops, 1):
        if op.pre_rest or op.cond_effects:
            if not op.applicable(state):
                return _failed(line, ident, task, op, i, n, state)
            state = op.apply(state)
        else:
            pos = op.pre_pos
            if state & pos != pos or state & op.pre_neg:
                return _failed(line, ident, task, op, i, n, state)
            state = (state & ~op.delete) | op.add
    if task.goal.holds(state):
        metric = "null"
        if task.problem.metric is not None:
            m = plan_metric(task, sum(op.cost for op in ops), n)
            metric = json_value(m.value if m is not None else None)
        return True, record_text(line, id_json(ident), "true", n, "null", "null",
                                 "null", "null", "", "", "", metric)
    unmet = false_parts(task.goal, state, task.facts)
    return not unmet, judged_record(line, ident, not unmet, n, None, None, None, None, (),
                                    unmet)


def _failed(line: int, ident: ItemId, task: Task, op: Operator, i: int, n: int,
            state: int) -> tuple[bool, str]:
    """The record of a plan whose step ``i`` (operator ``op``) cannot be executed
    in ``state``. A conjunctive precondition's failure is told the same way for
    the same false literals: kept per domain, by the literals."""
    key = None
    if not op.pre_rest:
        key = (op.name, op.args, op.pre_pos & ~state, op.pre_neg & state)
        told = task._shared.failures.get(key)
        if told is not None:
            return False, record_text(line, id_json(ident), "false", n, str(i), *told)
    err = precondition_error(task, Step(op.name, op.args), i, op, state)
    enc = encode_str
    told = (enc(str(err.step)), enc(str(err.kind)),
            enc(err.detail) if err.detail else "null",
            ", ".join([enc(u.pddl()) for u in err.unsatisfied]), "", "")
    if key is not None:
        failures = task._shared.failures
        if len(failures) > _BY_TEXT_SHARED:
            failures.clear()
        failures[key] = told
    return False, record_text(line, id_json(ident), "false", n, str(i), *told)


def _named_step(task: Task, group: str) -> tuple[str, tuple[str, ...]] | None:
    """The action name and arguments of the clean step ``(group)`` when the task
    knows the action, with that many parameters, and every argument is one of its
    objects; else None (the plan reader decides)."""
    words = group.split()
    name = words[0]
    schema = task.schemas.get(name)
    if schema is None or len(schema.params) != len(words) - 1:
        return None
    args = tuple(words[1:])
    objects = task.objects
    for a in args:
        if a not in objects:
            return None
    return name, args


def _quick_op(task: Task, group: str, index: int) -> Operator | None:
    """The operator of the clean step ``(group)`` of a plan, if the PDDL reader reads
    it as the step (a known action with its number of arguments, known objects: see
    :func:`veriplan.planio.pddl_plan.read_clean`) and the validator finds it
    well-formed; else None."""
    read = _named_step(task, group)
    if read is None:
        return None
    name, args = read
    op = task.checked_operator(name, args)
    if op is not None:
        return op
    step = Step(name, args)
    if not plainly_well_formed(task, step) and check_step(task, step, index) is not None:
        return None
    try:
        return task.mark_checked(name, args)
    except PDDLSemanticError:  # the general path says why
        return None


# ----- numeric tasks ---------------------------------------------------------------------------
def _numeric_record(task: Task, line: int, ident: ItemId, lines: list[str]
                    ) -> tuple[bool, str] | None:
    """:func:`quick_record` on a numeric task (its derived predicates, if any,
    compare no numbers): the compiled steps of :mod:`veriplan.pddl.numeric_code`
    run while they can say; the first step they cannot (a false precondition, a
    value missing) and what follows it are the general validator's, resumed in
    that state: the same record as the general path's."""
    memo = task.__dict__.get("_quick_numeric")
    if memo is None or len(memo) > _BY_TEXT:
        memo = task.__dict__["_quick_numeric"] = {}
    # every line's step (or _BLANK) at once when the memo knows every line
    ops = list(map(memo.get, lines))
    if None in ops:
        ops = _numeric_ops(task, memo, lines)
        if ops is None:
            return None
    elif _BLANK in ops:
        ops = [cs for cs in ops if cs is not _BLANK]
    slots = task_slots(task)
    values = slots.fresh()
    bits = task.base_init
    for i, cs in enumerate(ops):
        after = cs.fn(bits, values, cs)  # (None from a step that is not simple)
        if after is None:
            return _resumed(task, line, ident, ops, i, bits, values)
        bits = after
    n = len(ops)
    goal = compiled_goal(task)
    if not goal.simple or goal.fn(bits, values, goal) is None:
        return _resumed(task, line, ident, ops, n, bits, values)
    metric = "null"
    if task.problem.metric is not None:
        # metric_value's number, without the expression's text the record leaves out
        try:
            metric = json_value(value(task.problem.metric.expr, {}, SlotValues(slots, values),
                                      float(n)))
        except Undefined:
            metric = "null"
    return True, record_text(line, id_json(ident), "true", n, "null", "null", "null", "null",
                             "", "", "", metric)


_BLANK = object()  # a blank line, in a task's memo of step texts


class _Ill:
    """A step the PDDL reader reads as it stands and the validator finds not
    well-formed (an object of a wrong type, say), in a plan's compiled steps: it
    cannot say (``fn`` gives None), so the general validator resumed at it tells
    why, whatever the state (its failure is kept by the step alone)."""

    __slots__ = ("step", "fn", "simple", "general", "derived", "pos", "neg", "slots")

    def __init__(self, step: Step) -> None:
        self.step = step
        self.fn = never
        self.simple = True
        self.general = ()
        self.derived = self.pos = self.neg = 0
        self.slots = ()


def _numeric_ops(task: Task, memo: dict[str, object], lines: list[str]
                 ) -> list[CompiledStep] | None:
    """The compiled steps of ``lines``, each kept in ``memo`` by its text (a blank
    line as _BLANK), or None when a line is not one clean step the reader reads as
    it stands (the general path reads the plan)."""
    ops: list[CompiledStep] = []
    for text in lines:
        cs = memo.get(text)
        if cs is None:
            m = CLEAN_LINE.fullmatch(text)
            if m is None:
                return None
            group = m.group(1)
            if group is None:  # a blank line
                memo[text] = _BLANK
                continue
            cs = _numeric_op(task, group[1:-1], len(ops) + 1)
            if cs is None:
                return None
            memo[text] = cs
        if cs is not _BLANK:
            ops.append(cs)  # type: ignore[arg-type]
    return ops


def _resumed(task: Task, line: int, ident: ItemId, ops: list[CompiledStep], done: int,
             bits: int, values: list[float | None]) -> tuple[bool, str]:
    """The record of a plan whose first ``done`` steps the compiled steps ran to
    (``bits``, ``values``): the general validator's from there. A compiled step that
    could not say fails (the general path says why), and what it says depends on the
    state's parts the step reads alone: kept per task by those parts, as the
    classical path keeps a failure by its false literals."""
    from veriplan.verify.numeric import validate_numeric

    key = None
    n = len(ops)
    if done == n:  # the goal (the metric reads every value, and (total-time) is n)
        key = (n, bits, tuple(values))
    elif ops[done].simple:
        cs = ops[done]
        if cs.general or cs.derived:
            key = (cs, bits, tuple(values))
        else:
            key = (cs, cs.pos & ~bits, cs.neg & bits, tuple([values[i] for i in cs.slots]))
    failures = task.__dict__.setdefault("_quick_failures", {})
    told = failures.get(key) if key is not None else None
    if told is None:
        steps = tuple([cs.step for cs in ops])
        r = validate_numeric(task, steps, False, None, None, (done, bits, values))
        if key is None or r.valid or r.failed_step != (None if done == n else done + 1):
            return result_record(line, ident, r)
        enc = encode_str  # (the fields as judged_record writes them)
        told = (json_value(r.action), enc(str(r.error)) if r.error else "null",
                enc(r.detail) if r.detail else "null",
                ", ".join([enc(u.pddl()) for u in r.unsatisfied]),
                ", ".join([enc(g.pddl()) for g in r.unmet_goals]), "",
                json_value(r.metric.value if r.metric is not None else None))
        if len(failures) > _BY_TEXT:
            failures.clear()
        failures[key] = told
    return False, record_text(line, id_json(ident), "false", n,
                              "null" if done == n else str(done + 1), *told)


def _numeric_op(task: Task, group: str, index: int) -> CompiledStep | _Ill | None:
    """The compiled step ``(group)`` of a plan on a numeric task, if the PDDL
    reader reads it as the step and it is well-formed; an :class:`_Ill` if the
    reader reads it and it is not; else None."""
    read = _named_step(task, group)
    if read is None:
        return None
    name, args = read
    step = Step(name, args)
    ok = task._numeric_ok
    if (name, args) not in ok:
        if check_step(task, step, index) is not None:
            return _Ill(step)
        if len(ok) > 1 << 16:
            ok.clear()
        ok.add((name, args))
    return compiled_step(task, step)
