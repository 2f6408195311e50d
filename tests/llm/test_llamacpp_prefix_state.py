"""The embedded model's prefix-state cache (issue 36 part 3): a call whose prompt
begins like an earlier call's, with another call in between, reads only the rest; the
cache's bound counts every byte it keeps. The cache alone, then SmolLM2 (the suite's
real-model fixture)."""

from __future__ import annotations

import pytest

from veriplan.llm.backends.llamacpp import KeptState, PrefixStateCache
from veriplan.llm.types import LLMRequest, Message


def state(tokens: tuple[int, ...], size: int = 100) -> KeptState:
    return KeptState(tokens, b"", size, 0)


def test_the_cache_finds_the_state_with_the_longest_shared_beginning():
    c = PrefixStateCache(10_000)
    c[(1, 2, 3, 4)] = state((1, 2, 3, 4))
    c[(1, 2, 9)] = state((1, 2, 9))
    assert c[(1, 2, 3, 7, 7)].tokens == (1, 2, 3, 4)
    assert c[(1, 2, 9, 9)].tokens == (1, 2, 9)
    with pytest.raises(KeyError):
        c[(5, 6)]
    assert (c.hits, c.misses) == (2, 1)


def test_the_bound_counts_each_state_and_drops_the_least_recently_used():
    one = state((1,), 100).nbytes
    c = PrefixStateCache(3 * one)
    for t in (1, 2, 3):
        c[(t,)] = state((t,), 100)
    c[(1, 5)]  # (1,) used last
    c[(4,)] = state((4,), 100)
    assert list(c.states) == [(3,), (1,), (4,)] and c.cache_size == 3 * one
    c[(9,) * 50] = state((9,) * 50, 10 * one)  # larger than the whole bound: not kept
    assert (9,) * 50 not in c.states and c.cache_size == 3 * one


def test_a_state_that_a_newer_one_extends_is_dropped():
    c = PrefixStateCache(10_000)
    c[(1, 2)] = state((1, 2))
    c[(1, 2, 3)] = state((1, 2, 3))
    assert list(c.states) == [(1, 2, 3)]
    assert c.cache_size == state((1, 2, 3)).nbytes


@pytest.fixture(scope="module")
def smol(smollm2):
    from veriplan.llm.backends.llamacpp import LlamaCppBackend

    return LlamaCppBackend(model_path=str(smollm2), n_ctx=512, n_threads=1,
                           prefix_cache_mb=32)


def test_the_thread_count_reads_the_prompt_too(smol):
    # n_threads=1 must hold for the prompt as well as for the answer: a benchmark's
    # CPU seconds with one thread count the work only if no second thread spins.
    assert smol._llm.n_threads == 1 and smol._llm.n_threads_batch == 1


def ask(backend, text: str):
    return backend.complete(LLMRequest((Message("user", text),), temperature=0.0,
                                       max_tokens=1, seed=0))


def test_a_shared_beginning_is_read_once_across_another_call(smol):
    shared = ("Facts: the cup is on the table; the door is closed; the lamp is off; the "
              "window is open; the cat sleeps on the sofa; the kettle is cold; the keys are "
              "in the drawer by the door; the radio plays softly in the kitchen. ")
    n_shared = len(smol._llm.tokenize(shared.encode(), add_bos=False))
    assert n_shared > 40  # far longer than the chat template's opening
    first = ask(smol, shared + "Is the door open?")
    ask(smol, "Something else entirely.")  # the context now holds another prompt
    again = ask(smol, shared + "Is the lamp on?")
    assert first.extra["prompt_evaluated"] == first.prompt_tokens  # read whole, once
    # the context alone shares only the chat template's opening with the call before;
    # the first call's kept state gives back the facts as well
    assert again.extra["prompt_evaluated"] < again.prompt_tokens - n_shared
    stats = smol.cache_stats()
    assert stats["hits"] >= 1 and 0 < stats["bytes"] <= stats["capacity"]
    # every byte a kept state holds is in the count: its saved data and its tokens
    held = list(smol.cache.states.values())
    assert all(isinstance(s, KeptState) for s in held)
    assert stats["bytes"] == sum(s.nbytes for s in held)


class _Context:
    """The part of llama_cpp.Llama that reading a prompt touches: the tokens read
    (``input_ids`` up to ``n_tokens``) and each batch handed to llama.cpp."""

    def __init__(self, n_batch: int = 512) -> None:
        import numpy as np

        self.n_batch = n_batch
        self.n_tokens = 0
        self.input_ids = np.zeros(4096, dtype=np.intc)
        self.batches: list[list[int]] = []

    def eval(self, tokens):
        for i in range(0, len(tokens), self.n_batch):
            batch = list(tokens[i:i + self.n_batch])
            self.batches.append(batch)
            self.input_ids[self.n_tokens:self.n_tokens + len(batch)] = batch
            self.n_tokens += len(batch)


def _reader(n_batch: int = 512):
    from types import SimpleNamespace

    from veriplan.llm.backends.llamacpp import _llama_class

    return _llama_class(SimpleNamespace(Llama=_Context))(n_batch)


def test_a_short_unread_rest_is_read_with_the_tokens_before_it():
    """llama.cpp computes a batch of fewer than MIN_PROMPT_BATCH tokens on another
    path (other logits): a prompt whose kept beginning leaves fewer unread reads
    the tokens before them again, so no prompt batch is short."""
    from veriplan.llm.backends.llamacpp import MIN_PROMPT_BATCH as M

    llm = _reader()
    llm.prompt_evaluated = None
    llm.eval(list(range(100, 140)))  # a fresh prompt of 40 tokens
    llm.eval([7])  # an answer token, read alone as always
    assert llm.batches == [list(range(100, 140)), [7]]
    # the next prompt shares 39 tokens with the context and 1 is unread
    llm.n_tokens, llm.batches, llm.prompt_evaluated = 39, [], None
    llm.eval([9])
    assert llm.batches == [list(range(139 - M + 1, 139)) + [9]]
    assert llm.prompt_evaluated == M and llm.n_tokens == 40
    # a rest of MIN_PROMPT_BATCH or more is read as it is
    llm.n_tokens, llm.batches, llm.prompt_evaluated = 20, [], None
    llm.eval(list(range(M)))
    assert llm.batches == [list(range(M))] and llm.prompt_evaluated == M


def test_a_fresh_prompt_never_ends_with_a_short_batch():
    from veriplan.llm.backends.llamacpp import MIN_PROMPT_BATCH as M

    llm = _reader(n_batch=16)
    llm.prompt_evaluated = None
    llm.eval(list(range(33)))  # 16 + 16 + 1 in the library's batches
    assert [len(b) for b in llm.batches] == [16, 16 - M + 1, M]
    assert sum(llm.batches, []) == list(range(33)) and llm.prompt_evaluated == 33
