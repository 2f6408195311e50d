"""A veriplan LLM backend that forwards every request to an inspect-ai model.

veriplan's methods are synchronous; inspect's models are asynchronous and
keep their bookkeeping (the sample's transcript, usage, limits) in context
variables. The solver runs a method in a worker thread and gives this backend
the event loop's token and a copy of the sample's context: each request runs
``Model.generate`` on the event loop in that context, so every call shows in
the sample's transcript and counts against its limits, from the method's
thread or from any thread the method starts (``LLM.complete_many``).
"""

from __future__ import annotations

import contextvars
import functools
from typing import TYPE_CHECKING

import anyio.from_thread
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    ResponseSchema,
)
from inspect_ai.util import JSONSchema

from veriplan.errors import BackendError
from veriplan.llm.types import LLMRequest, LLMResponse, Message

if TYPE_CHECKING:
    from anyio.lowlevel import EventLoopToken
    from inspect_ai.model import Model

NAME = "inspect"


def chat_message(message: Message) -> ChatMessage:
    """A veriplan message as inspect's chat message of the same role."""
    if message.role == "system":
        return ChatMessageSystem(content=message.content)
    if message.role == "assistant":
        return ChatMessageAssistant(content=message.content)
    return ChatMessageUser(content=message.content)


def generate_config(request: LLMRequest) -> GenerateConfig:
    """The request's sampling settings as inspect's generate config (they
    override the model's own for this call). ``sample_index`` varies the seed,
    as veriplan's other backends do."""
    seed = None if request.seed is None else request.seed + request.sample_index
    schema = None
    if request.schema is not None:
        try:
            schema = ResponseSchema(name=request.schema_name,
                                    json_schema=JSONSchema.model_validate(request.schema))
        except ValueError:  # a schema inspect's model cannot express: plain text
            schema = None
    return GenerateConfig(temperature=request.temperature, max_tokens=request.max_tokens,
                          stop_seqs=list(request.stop) or None, seed=seed,
                          response_schema=schema)


class InspectBackend:
    """``complete`` runs ``model.generate`` on the event loop of ``token`` in a
    copy of ``context``; call it from a thread other than the loop's."""

    name = NAME

    def __init__(self, model: Model, token: EventLoopToken,
                 context: contextvars.Context | None = None) -> None:
        self.model = model
        self.default_model = str(model)
        self._token = token
        self._context = context if context is not None else contextvars.copy_context()

    def complete(self, request: LLMRequest) -> LLMResponse:
        messages = [chat_message(m) for m in request.messages]
        call = functools.partial(self.model.generate, messages,
                                 config=generate_config(request))
        try:
            output = self._context.copy().run(anyio.from_thread.run, call, token=self._token)
        except anyio.RunFinishedError:
            raise BackendError("inspect's event loop has finished: the sample that ran "
                               "this method is over") from None
        usage = output.usage
        return LLMResponse(
            output.completion, str(output.stop_reason),
            usage.input_tokens if usage else 0, usage.output_tokens if usage else 0,
            float(output.time or 0.0), NAME, output.model or self.default_model)
