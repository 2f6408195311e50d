"""One-message requests whose prompts and answers go to the method's
transcript: the way the step-by-step methods (DRIP, its baselines) talk to the
model."""

from __future__ import annotations

from collections.abc import Callable

from veriplan.llm.client import LLM
from veriplan.llm.types import LLMRequest, Message

Ask = Callable[..., str]  # (role, prompt, max_tokens, stop=()) -> answer


def logged_asker(llm: LLM, temperature: float, seed: int, log: list[dict]) -> Ask:
    """``ask(role, prompt, max_tokens, stop=())``; ``len(log)`` counts this
    method's calls even when other units share the client."""
    def ask(role: str, prompt: str, max_tokens: int, stop: tuple[str, ...] = ()) -> str:
        req = LLMRequest((Message("user", prompt),), temperature=temperature,
                         max_tokens=max_tokens, seed=seed, stop=stop)
        resp = llm.complete(req)
        log.append({"role": role, "prompt": prompt, "response": resp.text,
                    "cached": resp.cached})
        return resp.text
    return ask
