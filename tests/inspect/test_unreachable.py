"""A veriplan method inside inspect-ai fails at once where nothing listens
(issue 46, item 4): inspect retries a connection error without end by default;
the backend makes a refused connection one attempt and a typed error naming the
URL. Over a real socket on 127.0.0.1 with inspect's OpenAI-compatible provider."""

from __future__ import annotations

import contextvars
from dataclasses import dataclass

import anyio
import anyio.lowlevel
import anyio.to_thread
import pytest
from inspect_ai.model import GenerateConfig, Model, get_model
from tenacity import wait_none

from tests.llm.test_unreachable import closed_port
from veriplan.errors import EndpointUnreachableError
from veriplan.inspect.backend import InspectBackend
from veriplan.llm import LLM, LLMRequest


@dataclass
class Unreachable:
    """inspect's OpenAI-compatible model at ``url``, where nothing listens, and
    the attempts its API made (one entry each)."""

    url: str
    model: Model
    attempts: list[int]


@pytest.fixture
def unreachable(monkeypatch) -> Unreachable:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    # max_retries bounds the old behaviour (it retried until stopped) so the
    # test fails rather than hangs; -M max_retries=0: the SDK's own retries off
    model = get_model("openai-api/local/m", base_url=url, api_key="k", max_retries=0,
                      config=GenerateConfig(max_retries=3))
    monkeypatch.setattr(model.api, "retry_wait", lambda: wait_none())
    attempts: list[int] = []
    generate = model.api.generate

    async def counted(*args, **kwargs):
        attempts.append(1)
        return await generate(*args, **kwargs)

    monkeypatch.setattr(model.api, "generate", counted)
    return Unreachable(url, model, attempts)


def test_a_refused_connection_is_one_attempt_and_names_the_url(unreachable):
    url = unreachable.url

    async def run() -> None:
        backend = InspectBackend(unreachable.model, anyio.lowlevel.current_token(),
                                 contextvars.copy_context())
        llm = LLM(backend)
        await anyio.to_thread.run_sync(llm.complete, LLMRequest.of("q"))

    with pytest.raises(EndpointUnreachableError) as info:
        anyio.run(run)
    assert len(unreachable.attempts) == 1
    assert info.value.url == url
    assert str(info.value).startswith(f"nothing listens at {url}: start the server or fix")


def test_the_tasks_own_generate_fails_at_once_too(unreachable, tmp_path):
    """Without -T method the task's solver answers once through inspect's
    generate(); a refused connection ends the sample at the first attempt,
    naming the URL (inspect alone retried it without end)."""
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample

    from veriplan.inspect.solver import answer_once

    task = Task(dataset=[Sample(input="plan", target="")], solver=answer_once())
    [log] = eval(task, model=unreachable.model, log_dir=str(tmp_path), display="none")
    assert len(unreachable.attempts) == 1
    assert log.status == "error"
    assert f"nothing listens at {unreachable.url}" in log.error.message
