"""A solver that runs any veriplan PDDL method (closed loop, back-prompting,
DRIP, ...) on a sample, with inspect's model as the method's LLM.

The method runs in a worker thread and reaches the model through
:class:`~veriplan.inspect.backend.InspectBackend`, so each of its calls is a
model event of the sample. Afterwards the sample's messages are the method's
transcript (each prompt and answer), ``state.output`` is the method's plan
(PDDL lines) or, when it found none, the model's last answer, and the run's
summary (verified, solved_by, attempts, calls, tokens, last diagnosis) is in
``state.metadata["veriplan"]`` for the scorer to report beside its own verdict.
"""

from __future__ import annotations

import contextvars
import dataclasses
import functools
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING

import anyio.lowlevel
import anyio.to_thread
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageUser,
    ModelOutput,
    get_model,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver

from veriplan.core.problems import ProblemKind
from veriplan.errors import ConfigError
from veriplan.inspect.backend import InspectBackend, fail_fast, unreachable_error
from veriplan.inspect.dataset import instance_from_metadata
from veriplan.inspect.scorer import METHOD_KEY
from veriplan.llm.client import LLM
from veriplan.methods import MethodConfig, MethodSpec, SolveResult, get_method, methods_for
from veriplan.methods.records import Entry

if TYPE_CHECKING:
    from veriplan.core.jsonvalue import JSONValue


def method_config(spec: MethodSpec, config: Mapping[str, object] | str | None
                  ) -> MethodConfig:
    """The method's config from a mapping or a JSON object (``-T config=...``)."""
    if isinstance(config, str):
        try:
            config = json.loads(config) if config.strip() else {}
        except json.JSONDecodeError:
            raise ConfigError(f"method {spec.name}: config {config!r} is not a JSON object; "
                              "write e.g. -T config='{\"max_attempts\": 3}'") from None
    if config is not None and not isinstance(config, Mapping):
        raise ConfigError(f"method {spec.name}: config must map settings to values, not "
                          f"{type(config).__name__}")
    return spec.make_config(dict(config or {}))


def transcript_messages(transcript: list[Entry]) -> list[ChatMessage]:
    """The method's model calls as a conversation: each prompt, then the answer."""
    out: list[ChatMessage] = []
    for e in transcript:
        if e.prompt:
            out.append(ChatMessageUser(content=e.prompt))
        if e.response:
            out.append(ChatMessageAssistant(content=e.response))
    return out


def final_answer(result: SolveResult) -> str:
    """The method's plan as PDDL lines, else the model's last answer."""
    if result.plan:
        return "\n".join(result.plan)
    for e in reversed(result.transcript):
        if e.response:
            return e.response
    return ""


def run_summary(result: SolveResult) -> dict[str, JSONValue]:
    return {"method": result.method, "verified": result.verified,
            "scope": result.scope.value,
            "solved_by": result.solved_by, "attempts": result.attempts,
            "llm_calls": result.llm_calls, "tokens": result.tokens,
            "last_diagnosis": result.last_diagnosis, "failure": result.failure,
            "plan": list(result.plan)}


@solver
def veriplan_method(method: str = "direct",
                    config: Mapping[str, object] | str | None = None) -> Solver:
    """Run veriplan's ``method`` with its settings ``config`` (the method's
    defaults otherwise) on each sample. Methods with a ``seed`` setting get
    ``seed + epoch - 1``, so inspect's epochs are distinct runs."""
    spec = get_method(method)
    if spec.problem is not ProblemKind.PDDL:
        raise ConfigError(f"method {method} takes '{spec.problem.value}' problems; the inspect "
                          "tasks hold PDDL problems (use "
                          f"{', '.join(methods_for(ProblemKind.PDDL))})")
    base = method_config(spec, config)
    seeded = "seed" in spec.settings()

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        problem = instance_from_metadata(state.metadata).problem(spec.problem)
        cfg = (dataclasses.replace(base, seed=base.seed + state.epoch - 1) if seeded
               else base)
        model = get_model()
        backend = InspectBackend(model, anyio.lowlevel.current_token(),
                                 contextvars.copy_context())
        llm = LLM(backend, max_in_flight=4)
        result = await anyio.to_thread.run_sync(
            functools.partial(spec.solve, problem, llm, cfg))
        messages = transcript_messages(result.transcript)
        if messages:
            state.messages = messages
        state.output = ModelOutput.from_content(str(model), final_answer(result))
        state.metadata[METHOD_KEY] = run_summary(result)
        return state

    return solve


@solver
def answer_once() -> Solver:
    """inspect's ``generate()`` (one answer to the sample's prompt), where a model
    endpoint with nothing listening ends the sample at the first attempt with
    :class:`~veriplan.errors.EndpointUnreachableError` naming the URL, as a
    veriplan method's calls do (inspect alone retries it without end)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
        fail_fast(model)
        try:
            return await generate(state)
        except Exception as exc:
            typed = unreachable_error(exc, model)
            if typed is None:
                raise
            raise typed from None

    return solve
