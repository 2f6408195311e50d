"""One-message requests whose prompts and answers go to the method's
transcript: the way the step-by-step methods (DRIP, its baselines) talk to the
model."""

from __future__ import annotations

from collections.abc import Callable

from veriplan.llm.client import LLM
from veriplan.llm.types import LLMRequest, Message
from veriplan.methods.records import Entry

Ask = Callable[..., str]  # (role, prompt, max_tokens, stop=()) -> answer


def logged_asker(llm: LLM, temperature: float, seed: int, log: list[Entry]) -> Ask:
    """``ask(role, prompt, max_tokens, stop=())``: each call appends an
    :class:`Entry` (numbered from 1) to ``log``; the caller fills in its verdict
    (``log[-1].ok``, ``.verdict``) once it has judged the answer."""
    def ask(role: str, prompt: str, max_tokens: int, stop: tuple[str, ...] = ()) -> str:
        req = LLMRequest((Message("user", prompt),), temperature=temperature,
                         max_tokens=max_tokens, seed=seed, stop=stop)
        resp = llm.complete(req)
        calls = sum(e.call is not None for e in log)
        log.append(Entry(calls + 1, role, prompt, resp.text, resp.cached))
        return resp.text
    return ask
