"""``run_method``: one of veriplan's PDDL methods on a task, with the language
model the server was started with (``veriplan mcp --backend ...``). The run's
events become progress notifications; a cancelled call stops the run at its
next event. No method that runs model-written code is offered."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated

import anyio.from_thread
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.tools import Tool
from mcp_types import ToolAnnotations
from pydantic import Field

from veriplan.mcp import models as M
from veriplan.mcp import tools as T
from veriplan.mcp.calls import register_tool, run_call
from veriplan.mcp.config import ServerConfig, ToolInputError
from veriplan.mcp.params import (
    Config,
    ConfigPath,
    Domain,
    DomainPath,
    Problem,
    ProblemPath,
    Settings,
)

if TYPE_CHECKING:
    from veriplan.llm.client import LLM
    from veriplan.methods.records import Event


def offered_methods() -> tuple[str, ...]:
    """The methods run_method offers: every registered method that plans for a
    PDDL task (whose plans veriplan's validator judges; none runs model-written
    code), the default first, then in the order the methods are declared (a
    method registered later is offered from then on)."""
    from veriplan.core.problems import ProblemKind
    from veriplan.methods import DEFAULT_METHOD, methods_for

    pddl = methods_for(ProblemKind.PDDL)
    return tuple(sorted(pddl, key=lambda name: name != DEFAULT_METHOD))


def _methods_help() -> str:
    """run_method's ``method`` described (read where the tool is registered:
    the annotations are evaluated then, in this module)."""
    offered = offered_methods()
    return f"{offered[0]} (default), {', '.join(offered[1:])}"


class _Model:
    """The server's language model, built on the first run_method call."""

    def __init__(self, cfg: ServerConfig) -> None:
        self.cfg = cfg
        self._lock = threading.Lock()
        self._llm: LLM | None = None

    def get(self) -> LLM:
        with self._lock:
            if self._llm is None:
                from veriplan.llm import LLM, create_backend

                assert self.cfg.backend is not None
                backend = create_backend(self.cfg.backend, **dict(self.cfg.backend_options))
                self._llm = LLM(backend, cache=None)
            return self._llm


def run(cfg: ServerConfig, model: _Model, deadline: T.Deadline, *, method: str,
        domain: str | None, domain_path: str | None, problem: str | None,
        problem_path: str | None, planbench_config: str | None,
        planbench_config_path: str | None, settings: dict[str, str] | None,
        progress: Callable[[Event], None]) -> M.RunMethodDoc:
    from veriplan.methods import PlanningProblem, get_method

    offered = offered_methods()
    if method not in offered:
        raise ToolInputError(f"unknown method {method!r}: run_method offers "
                             f"{', '.join(offered)}")
    spec = get_method(method)
    config = spec.make_config(settings or {})
    task = T.load_task(cfg, domain, domain_path, problem, problem_path)
    pb = T.load_config(cfg, planbench_config, planbench_config_path)
    problem_ = PlanningProblem(task, pb, name=task.problem.name)

    def observer(event: Event) -> None:
        deadline.check(f"run_method {method}")
        progress(event)

    result = spec.solve(problem_, model.get().session(), config, observer=observer)
    return M.RunMethodDoc(
        method=result.method, verified=result.verified, scope=result.scope.value,
        verified_on=result.verified_on, plan=list(result.plan), solved_by=result.solved_by,
        attempts=result.attempts, llm_calls=result.llm_calls, tokens=result.tokens,
        seconds=round(result.seconds, 3), backend=result.backend, model=result.model,
        failure=result.failure, last_diagnosis=result.last_diagnosis)


def register_run_method(tools: list[Tool], cfg: ServerConfig) -> None:
    model = _Model(cfg)
    default = offered_methods()[0]

    @register_tool(tools, annotations=ToolAnnotations(read_only_hint=True, destructive_hint=False,
                                             idempotent_hint=False, open_world_hint=True))
    async def run_method(
            ctx: Context,
            method: Annotated[str, Field(description=_methods_help())] = default,
            domain: Domain = None, domain_path: DomainPath = None, problem: Problem = None,
            problem_path: ProblemPath = None, planbench_config: Config = None,
            planbench_config_path: ConfigPath = None,
            settings: Settings = None,
    ) -> M.RunMethodDoc:
        """Run one of veriplan's planning methods on a PDDL task with the language model
        the server was started with; the plan counts only when veriplan's validator
        accepted it (verified). Reports progress; a cancelled call stops the run."""
        counter = [0]

        def progress(event: Event) -> None:
            counter[0] += 1
            text = f"{event.kind.value}: {event.text[:120]}" if event.text else event.kind.value
            # a client gone away does not stop the run
            with contextlib.suppress(Exception):
                anyio.from_thread.run(ctx.report_progress, counter[0], None, text)

        return await run_call(cfg, "run_method", lambda d: run(
            cfg, model, d, method=method, domain=domain, domain_path=domain_path,
            problem=problem, problem_path=problem_path, planbench_config=planbench_config,
            planbench_config_path=planbench_config_path, settings=settings,
            progress=progress), limit=cfg.method_time_limit)
