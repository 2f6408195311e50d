"""The embedded model's prefix cache: its size setting and the count of prompt tokens read
(no model is loaded here)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from veriplan.errors import BadRequestError
from veriplan.llm.backends import llamacpp
from veriplan.llm.backends.llamacpp import (
    DEFAULT_PREFIX_CACHE_MB,
    _llama_class,
    prefix_cache_size_mb,
)


def test_the_cache_size_is_a_bounded_setting(monkeypatch):
    monkeypatch.delenv("VERIPLAN_LLAMA_CACHE_MB", raising=False)
    assert prefix_cache_size_mb() == DEFAULT_PREFIX_CACHE_MB
    assert prefix_cache_size_mb(0) == 0
    assert prefix_cache_size_mb("256") == 256
    monkeypatch.setenv("VERIPLAN_LLAMA_CACHE_MB", "64")
    assert prefix_cache_size_mb() == 64
    assert prefix_cache_size_mb(8) == 8  # the option wins over the environment
    for bad in ("-1", "lots", -5):
        with pytest.raises(BadRequestError, match="whole number of MB"):
            prefix_cache_size_mb(bad)


class _FakeLlama:
    def __init__(self) -> None:
        self.evals: list[int] = []
        self.n_tokens = 0
        self.n_batch = 512

    def eval(self, tokens):
        self.evals.append(len(tokens))

    def _init_sampler(self, **kw):
        return "library's"


def test_the_first_eval_of_a_call_counts_the_prompt_tokens_read():
    cls = _llama_class(SimpleNamespace(Llama=_FakeLlama))
    llm = cls()
    llm.prompt_evaluated = None  # as complete() does before each call
    llm.eval([1, 2, 3, 4])  # the prompt's unread rest
    llm.eval([5])  # answer tokens
    llm.eval([6])
    assert llm.prompt_evaluated == 4 and llm.evals == [4, 1, 1]
    llm.prompt_evaluated = None
    llm.eval([7])
    assert llm.prompt_evaluated == 1
    assert llm._init_sampler(temp=0.8) == "library's"


def test_the_backend_documents_its_cache():
    doc = llamacpp.LlamaCppBackend.__doc__ or ""
    assert "prefix_cache_mb" in doc and "VERIPLAN_LLAMA_CACHE_MB" in doc
