"""Fast Downward, the binary shipped in the PyPI package ``up-fast-downward``.

The task is written out as PDDL by our writer into a fresh temporary
directory, the planner runs there (never in the caller's cwd), and its plan
is read back; the caller validates it with our verifier.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from veriplan.core.plan import Step
from veriplan.errors import PlannerError
from veriplan.pddl.task import Task
from veriplan.pddl.writer import domain_to_pddl, problem_to_pddl
from veriplan.planio.pddl_plan import read_pddl_plan

# Exit codes of the Fast Downward driver (driver/returncodes.py).
_SOLVED = {0, 1, 2, 3}
_UNSOLVABLE = {10, 11}
_INCOMPLETE = {12}
_OUT_OF_RESOURCES = {20, 21, 22, 23}


@dataclass(frozen=True)
class FDOutcome:
    status: str  # "solved", "unsolvable", "incomplete", "budget"
    plan: tuple[Step, ...] | None
    seconds: float
    log_tail: str


def fast_downward_script() -> Path:
    spec = importlib.util.find_spec("up_fast_downward")
    if spec is None or not spec.submodule_search_locations:
        raise PlannerError(
            "Fast Downward is not installed: pip install 'veriplan[planners]' "
            "(it comes from the PyPI package up-fast-downward)")
    script = Path(next(iter(spec.submodule_search_locations))) / "downward" / "fast-downward.py"
    if not script.is_file():
        raise PlannerError(f"Fast Downward driver not found at {script}: reinstall "
                           "up-fast-downward")
    return script


def _declared(task: Task):
    """Domain and problem as Fast Downward's translator wants them: constants a
    leniently read domain uses without declaring (ALFWorld's alfred.pddl names
    SinkBasinType and others that each problem declares) become domain constants."""
    free = [c for c in task.domain.free_constants if c in task.problem.objects]
    if not free:
        return task.domain, task.problem
    domain = dataclasses.replace(task.domain, constants={
        **task.domain.constants, **{c: task.problem.objects[c] for c in free}})
    problem = dataclasses.replace(task.problem, objects={
        k: v for k, v in task.problem.objects.items() if k not in free})
    return domain, problem


def run_fast_downward(task: Task, *, alias: str | None = "lama-first",
                      search: str | None = None, time_limit: float = 300) -> FDOutcome:
    """Run Fast Downward on ``task``; ``search`` (e.g. ``"astar(lmcut())"``)
    overrides ``alias``."""
    script = fast_downward_script()
    with tempfile.TemporaryDirectory(prefix="veriplan-fd-") as tmp:
        d = Path(tmp)
        domain, problem = _declared(task)
        (d / "domain.pddl").write_text(domain_to_pddl(domain))
        (d / "problem.pddl").write_text(problem_to_pddl(problem))
        cmd = [sys.executable, str(script), "--plan-file", "plan.txt",
               "--overall-time-limit", f"{max(1, int(time_limit))}s"]
        if search is None:
            cmd += ["--alias", alias or "lama-first", "domain.pddl", "problem.pddl"]
        else:
            cmd += ["domain.pddl", "problem.pddl", "--search", search]
        start = time.perf_counter()
        try:
            proc = subprocess.run(cmd, cwd=d, capture_output=True, text=True,
                                  timeout=time_limit + 60)
        except subprocess.TimeoutExpired:
            return FDOutcome("budget", None, time.perf_counter() - start, "")
        seconds = time.perf_counter() - start
        log = (proc.stdout + proc.stderr)[-2000:]
        code = proc.returncode
        if code in _SOLVED:
            plans = sorted(d.glob("plan.txt*"))
            if not plans:
                raise PlannerError(f"Fast Downward reported success but wrote no plan:\n{log}")
            parsed = read_pddl_plan(plans[-1].read_text(), set(task.schemas))
            parsed.raise_for_errors(file="Fast Downward plan")
            return FDOutcome("solved", parsed.steps, seconds, log)
        if code in _UNSOLVABLE:
            return FDOutcome("unsolvable", None, seconds, log)
        if code in _INCOMPLETE:
            return FDOutcome("incomplete", None, seconds, log)
        if code in _OUT_OF_RESOURCES:
            return FDOutcome("budget", None, seconds, log)
        if code == 34:
            raise PlannerError(
                "Fast Downward does not support this task with this configuration (A* with "
                "LM-cut, for one, rejects the axioms ADL preconditions compile to); try "
                f"planner 'fd':\n{log[-400:]}")
        raise PlannerError(f"Fast Downward failed with exit code {code}:\n{log}")
