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
