"""A veriplan LLM backend that forwards every request to an inspect-ai model.

veriplan's methods are synchronous; inspect's models are asynchronous and
keep their bookkeeping (the sample's transcript, usage, limits) in context
variables. The solver runs a method in a worker thread and gives this backend
the event loop's token and a copy of the sample's context: each request runs
``Model.generate`` on the event loop in that context, so every call shows in
the sample's transcript and counts against its limits, from the method's
thread or from any thread the method starts (``LLM.complete_many``).

A model endpoint where nothing answers fails at once. inspect-ai retries a
connection error without end by default (``max_retries`` and ``timeout`` unset,
back-off from 3 s up to 30 minutes): the backend teaches the model's retry check
that a refused connection, a host name that does not resolve or an unreachable
network is not worth retrying (the rule of veriplan's own backends,
:func:`~veriplan.llm.backends.sdk_errors.unreachable_reason`), and raises
:class:`~veriplan.errors.EndpointUnreachableError` naming the URL. Timeouts,
dropped connections, 5xx and 429 stay inspect's to retry.
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

from veriplan.errors import BackendError, EndpointUnreachableError
from veriplan.llm.backends.sdk_errors import unreachable_reason
from veriplan.llm.types import LLMRequest, LLMResponse, Message

if TYPE_CHECKING:
    from anyio.lowlevel import EventLoopToken
    from inspect_ai.model import Model

NAME = "inspect"
URL_FIX = ("the model's base URL (inspect's --model-base-url, or LOCAL_BASE_URL for "
           "openai-api/local/...)")
_FAIL_FAST = "_veriplan_fail_fast"


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


def model_url(model: Model) -> str:
    """The address the model's API connects to (its name where it has none)."""
    return str(getattr(model.api, "base_url", None) or model)


def _attempted(exc: BaseException) -> BaseException:
    """The exception of the last attempt where inspect's retry gave up (tenacity's
    ``RetryError``), else ``exc`` itself."""
    last = getattr(exc, "last_attempt", None)
    failed = last.exception() if last is not None and hasattr(last, "exception") else None
    return failed if isinstance(failed, BaseException) else exc


def fail_fast(model: Model) -> None:
    """Make ``model`` give up at once on an endpoint where nothing answers:
    its API's ``should_retry`` says no for an unreachable endpoint, and asks
    the API's own rule for everything else. Done once per model object."""
    api = model.api
    if getattr(api, _FAIL_FAST, False):
        return
    url = model_url(model)
    inner = api.should_retry

    def should_retry(ex: BaseException):  # type: ignore[no-untyped-def]
        if unreachable_reason(ex, url, URL_FIX) is not None:
            return False
        return inner(ex)

    api.should_retry = should_retry  # type: ignore[method-assign]
    setattr(api, _FAIL_FAST, True)


def unreachable_error(exc: BaseException, model: Model) -> EndpointUnreachableError | None:
    """``exc`` from ``model.generate`` as veriplan's typed error when nothing
    answers at the model's address (None for anything else)."""
    url = model_url(model)
    reason = unreachable_reason(_attempted(exc), url, URL_FIX)
    return None if reason is None else EndpointUnreachableError(reason, url)


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
        fail_fast(model)

    def complete(self, request: LLMRequest) -> LLMResponse:
        messages = [chat_message(m) for m in request.messages]
        call = functools.partial(self.model.generate, messages,
                                 config=generate_config(request))
        try:
            output = self._context.copy().run(anyio.from_thread.run, call, token=self._token)
        except anyio.RunFinishedError:
            raise BackendError("inspect's event loop has finished: the sample that ran "
                               "this method is over") from None
        except Exception as exc:
            typed = unreachable_error(exc, self.model)
            if typed is None:
                raise
            raise typed from None
        usage = output.usage
        return LLMResponse(
            output.completion, str(output.stop_reason),
            usage.input_tokens if usage else 0, usage.output_tokens if usage else 0,
            float(output.time or 0.0), NAME, output.model or self.default_model)
