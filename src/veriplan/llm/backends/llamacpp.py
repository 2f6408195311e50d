"""The embedded default: llama.cpp in-process through ``llama-cpp-python``."""

from __future__ import annotations

import ctypes
import json
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from veriplan.errors import BackendError, BackendUnavailableError, BadRequestError
from veriplan.llm.models import DEFAULT_MODEL, Progress, resolve_model
from veriplan.llm.types import LLMRequest, LLMResponse

INSTALL_HINT = (
    'pip install llama-cpp-python with CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON '
    '-DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON" (the Makefile does this; the default '
    "native build can crash on the first token)")


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask, else the count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


#: The prefix cache's default size in MB (``prefix_cache_mb``; ``VERIPLAN_LLAMA_CACHE_MB``).
DEFAULT_PREFIX_CACHE_MB = 1024


def prefix_cache_size_mb(value: object = None) -> int:
    """The prefix cache's size in MB: ``value`` when given, else
    ``VERIPLAN_LLAMA_CACHE_MB``, else :data:`DEFAULT_PREFIX_CACHE_MB`; 0 turns
    it off. Not a non-negative integer: BadRequestError."""
    raw = value if value is not None else os.environ.get("VERIPLAN_LLAMA_CACHE_MB")
    if raw is None or raw == "":
        return DEFAULT_PREFIX_CACHE_MB
    try:
        mb = int(str(raw))
    except ValueError:
        mb = -1
    if mb < 0:
        raise BadRequestError(f"the prefix cache size must be a whole number of MB (0: off), "
                              f"not {str(raw)[:40]!r}")
    return mb


@dataclass(frozen=True)
class KeptState:
    """The context's saved data (``data``, ``size`` bytes: its key/value cache
    and last logits) after reading ``tokens``."""

    tokens: tuple[int, ...]
    data: object  # a ctypes byte array, handed back to llama.cpp as it is
    size: int
    seed: int

    @property
    def input_ids(self):  # type: ignore[no-untyped-def]
        """The tokens as llama-cpp-python's completion code reads a cache item's."""
        import numpy as np

        return np.asarray(self.tokens, dtype=np.intc)

    @property
    def nbytes(self) -> int:
        return self.size + 8 * len(self.tokens)


def _common_prefix(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


class PrefixStateCache:
    """Model states keyed by the tokens they were saved after, at most
    ``capacity_bytes`` in all (each state's data and tokens), least recently
    used first out. Looked up by a prompt: the state sharing the longest
    beginning with it (``KeyError`` when none shares a token). A state whose
    tokens begin a newer state's is dropped when that one is kept: the newer
    one serves every prompt the older one could. The interface is the one
    llama-cpp-python's completion code uses for its ``cache``."""

    def __init__(self, capacity_bytes: int) -> None:
        self.capacity_bytes = capacity_bytes
        self.states: OrderedDict[tuple[int, ...], KeptState] = OrderedDict()
        self.cache_size = 0
        self.hits = self.misses = 0

    def __bool__(self) -> bool:  # the library tests ``if self.cache``
        return True

    def longest(self, tokens: Sequence[int]) -> tuple[tuple[int, ...] | None, int]:
        """The key sharing the longest beginning with ``tokens``, and its length."""
        key = tuple(tokens)
        best, n = None, 0
        for k in self.states:
            m = _common_prefix(k, key)
            if m > n:
                best, n = k, m
        return best, n

    def __contains__(self, tokens: Sequence[int]) -> bool:
        return self.longest(tokens)[0] is not None

    def __getitem__(self, tokens: Sequence[int]) -> KeptState:
        key, _ = self.longest(tokens)
        if key is None:
            self.misses += 1
            raise KeyError("no kept state shares a beginning with this prompt")
        self.hits += 1
        self.states.move_to_end(key)
        return self.states[key]

    def __setitem__(self, tokens: Sequence[int], state: KeptState) -> None:
        key = tuple(tokens)
        for k in [k for k in self.states if len(k) <= len(key) and key[:len(k)] == k]:
            self.cache_size -= self.states.pop(k).nbytes
        if state.nbytes > self.capacity_bytes:
            return
        self.states[key] = state
        self.cache_size += state.nbytes
        while self.cache_size > self.capacity_bytes:
            self.cache_size -= self.states.popitem(last=False)[1].nbytes


class LlamaCppBackend:
    """A GGUF model loaded once, answering chat requests in-process.

    ``model`` is an embedded model name (see ``veriplan model list``) or a path
    to any GGUF file. Calls are serialized: one llama.cpp context is not
    thread-safe, and on a 2-core machine parallel decoding gains nothing.

    Prompt prefixes are not read twice: llama.cpp keeps the last call's tokens in
    its context and reads only what follows the longest common prefix; on top of
    that the model's state after each call (prompt and answer) is kept in a
    :class:`PrefixStateCache` of at most ``prefix_cache_mb`` MB (default
    :data:`DEFAULT_PREFIX_CACHE_MB`, or ``VERIPLAN_LLAMA_CACHE_MB``; 0: off;
    least recently used states are dropped first), and a call whose prompt
    shares a longer beginning with a kept state than with the context restores
    that state and reads only the rest. A state is the context's own saved data
    (the key/value cache of its tokens, about 28 KB a token for the default
    Qwen2.5-Coder-1.5B, and the last call's logits) and its tokens, and the
    bound counts exactly those bytes. (llama-cpp-python's own ``LlamaRAMCache``
    also copies a score matrix of up to 512 x vocabulary floats into every
    state, 311 MB for a 152k-token vocabulary, which its bound does not count
    and nothing reads without ``logits_all``.) ``prompt_evaluated`` (in each
    response's ``extra``) counts the prompt tokens the model actually read;
    ``cache_stats`` says what the cache holds and how often it was used.
    """

    name = "llamacpp"
    serial = True  # one context: LLM.complete_many sends requests in order

    @classmethod
    def model_name_for(cls, options: Mapping[str, object]) -> str:
        """The model these options select, known without loading it: ``model``,
        else the stem of ``model_path``, else the default embedded model."""
        if options.get("model"):
            return str(options["model"])
        path = options.get("model_path")
        return Path(str(path)).stem if path else DEFAULT_MODEL

    def __init__(self, model: str | None = None, *, model_path: str | None = None,
                 n_ctx: int = 16384, n_threads: int | None = None,
                 progress: Progress | None = None, prefix_cache_mb: int | str | None = None,
                 **_: object) -> None:
        try:
            import llama_cpp
        except ImportError:
            raise BackendUnavailableError(f"llama-cpp-python is not installed: {INSTALL_HINT}"
                                          ) from None
        path: Path = resolve_model(model_path or model or DEFAULT_MODEL, progress=progress)
        self.default_model = (model or DEFAULT_MODEL) if not model_path else Path(model_path).stem
        self._lock = threading.Lock()
        self._grammars: dict[str, tuple[object, str]] = {}
        # llama-cpp-python's own default decodes on half the CPUs (it assumes two
        # hardware threads per core); on a 2-CPU machine that is one thread, and
        # decoding is 1.5x faster on both (benchmarks/llamacpp_threads.py).
        # The same count reads the prompt: llama-cpp-python would read it on every CPU
        # (its n_threads_batch default), so n_threads=1 still took both cores.
        n_threads = n_threads or usable_cpus()
        self.prefix_cache_mb = prefix_cache_size_mb(prefix_cache_mb)
        try:
            self._llm = _llama_class(llama_cpp)(model_path=str(path), n_ctx=n_ctx,
                                                n_threads=n_threads,
                                                n_threads_batch=n_threads, verbose=False,
                                                seed=0)
        except (ValueError, RuntimeError) as exc:
            raise BackendError(f"llama.cpp could not load {path}: {exc}") from None
        self.cache: PrefixStateCache | None = None
        if self.prefix_cache_mb > 0:
            self.cache = PrefixStateCache(self.prefix_cache_mb << 20)
            self._llm.set_cache(self.cache)

    def cache_stats(self) -> dict[str, int]:
        """The prefix cache's states, bytes held, bound, hits and misses (all
        0 when it is off)."""
        c = self.cache
        if c is None:
            return {"states": 0, "bytes": 0, "capacity": 0, "hits": 0, "misses": 0}
        return {"states": len(c.states), "bytes": c.cache_size, "capacity": c.capacity_bytes,
                "hits": c.hits, "misses": c.misses}

    def complete(self, request: LLMRequest) -> LLMResponse:
        start = time.perf_counter()
        msgs = [{"role": m.role, "content": m.content} for m in request.messages]
        seed = None if request.seed is None else request.seed + request.sample_index
        grammar, enforced = (None, "") if request.schema is None else self._grammar(request.schema)
        with self._lock:
            self._llm.prompt_evaluated = None  # set by the first eval of this call
            try:
                out = self._llm.create_chat_completion(
                    messages=msgs, temperature=request.temperature,
                    max_tokens=request.max_tokens, stop=list(request.stop) or None, seed=seed,
                    grammar=grammar)
            except ValueError as exc:  # e.g. prompt longer than the context
                raise BadRequestError(f"llama.cpp rejected the request: {exc}") from None
            evaluated = self._llm.prompt_evaluated
        choice = out["choices"][0]
        usage = out.get("usage") or {}
        extra: dict[str, object] = {"structured": enforced} if enforced else {}
        extra["prompt_evaluated"] = evaluated or 0
        return LLMResponse(choice["message"].get("content") or "",
                           choice.get("finish_reason") or "stop",
                           usage.get("prompt_tokens", 0), usage.get("completion_tokens", 0),
                           time.perf_counter() - start, self.name,
                           request.model or self.default_model, extra=extra)

    def _grammar(self, schema: Mapping) -> tuple[object, str]:
        """The grammar for ``schema`` (made once per schema) and what it
        enforces: ``"schema"``, or ``"json"`` when the converter could not
        express the schema and any JSON value is allowed instead."""
        key = json.dumps(schema, sort_keys=True, ensure_ascii=False)
        found = self._grammars.get(key)
        if found is None:
            from llama_cpp import llama_grammar as grammars

            try:
                found = (grammars.LlamaGrammar.from_json_schema(
                    json.dumps(schema, ensure_ascii=False), verbose=False), "schema")
            except Exception:  # the converter raises plain exceptions on what it lacks
                found = (grammars.LlamaGrammar.from_string(grammars.JSON_GBNF, verbose=False),
                         "json")
            self._grammars[key] = found
        return found


# --- grammar-constrained greedy decoding, checked token first -----------------------
# llama-cpp-python puts the grammar in the sampler chain, so every token runs the
# grammar over the whole vocabulary (50-80 ms for a 152k-token vocabulary, against
# 40-100 ms to decode the token on the machines measured; RESULTS "Structured output").
# At temperature 0 the answer is the highest-scoring token the grammar allows: the
# highest-scoring token overall is checked alone first, and the whole vocabulary is
# masked only when the grammar refuses it. The token chosen is the library's, always.


#: The fewest prompt tokens read in one batch. llama.cpp's CPU kernels compute a
#: batch of fewer tokens on another path whose results differ in the first decimals
#: (logits up to 0.72 apart for Qwen2.5-Coder-1.5B, batches of 1 to 6 tokens; 8 and
#: more gave bit-identical logits: benchmarks/llamacpp_batch_split.py), so an answer
#: at temperature 0 would depend on how much of its prompt was kept from before.
#: With every prompt batch at least this long, a prompt read after a kept prefix
#: gives the logits of a prompt read whole.
MIN_PROMPT_BATCH = 8


def _llama_class(llama_cpp):  # type: ignore[no-untyped-def]
    """``llama_cpp.Llama`` counting the prompt tokens a call reads
    (``prompt_evaluated``: the first ``eval`` of a call is its prompt's unread
    rest), with greedy grammar sampling that checks the best token first when
    the library has its sampler hook."""
    base = llama_cpp.Llama
    hook = hasattr(base, "_init_sampler")

    class _Llama(base):  # type: ignore[misc, valid-type]
        prompt_evaluated: int | None = None

        def eval(self, tokens):  # type: ignore[no-untyped-def]
            if self.prompt_evaluated is not None:  # an answer token
                return super().eval(tokens)
            # The prompt's unread rest: no batch of it is shorter than
            # MIN_PROMPT_BATCH (see there). A shorter rest is read with the
            # tokens before it; a fresh prompt whose last batch would be short
            # takes tokens from the batch before.
            tokens = list(tokens)
            back = min(self.n_tokens, MIN_PROMPT_BATCH - len(tokens))
            if back > 0:
                self.n_tokens -= back
                tokens[:0] = self.input_ids[self.n_tokens:self.n_tokens + back].tolist()
            self.prompt_evaluated = len(tokens)
            if len(tokens) > self.n_batch and 0 < len(tokens) % self.n_batch < MIN_PROMPT_BATCH:
                super().eval(tokens[:-MIN_PROMPT_BATCH])
                tokens = tokens[-MIN_PROMPT_BATCH:]
            return super().eval(tokens)

        def save_state(self) -> KeptState:  # type: ignore[override]
            """The context's data and tokens, without the library's score copy."""
            ctx = self._ctx.ctx
            size = int(llama_cpp.llama_state_get_size(ctx))
            data = (ctypes.c_uint8 * size)()
            n = int(llama_cpp.llama_state_get_data(ctx, data, size))
            if n > size:
                raise BackendError("llama.cpp wrote more state than it said it would")
            return KeptState(tuple(self.input_ids[:self.n_tokens].tolist()), data, n,
                             self._seed)

        def load_state(self, state):  # type: ignore[no-untyped-def]
            if not isinstance(state, KeptState):
                return super().load_state(state)
            n = len(state.tokens)
            self.input_ids[:n] = state.tokens
            self.n_tokens = n
            self._requires_eval = True  # the next call reads at least one token
            self._seed = state.seed
            if int(llama_cpp.llama_state_set_data(self._ctx.ctx, state.data, state.size)
                   ) != state.size:
                raise BackendError("llama.cpp could not restore a kept state")
            return None

        def _init_sampler(self, **kw):  # type: ignore[no-untyped-def]
            if hook and _plain_greedy(kw):
                return GreedyGrammarSampler(llama_cpp, self._model.vocab, self.n_vocab(),
                                            kw["grammar"])
            return super()._init_sampler(**kw)

    return _Llama


def _plain_greedy(kw: Mapping[str, object]) -> bool:
    """Greedy, with a grammar, and nothing else in the chain that changes scores."""
    return (kw.get("grammar") is not None and kw.get("temp") == 0.0
            and kw.get("repeat_penalty", 1.0) == 1.0
            and kw.get("frequency_penalty", 0.0) == 0.0
            and kw.get("presence_penalty", 0.0) == 0.0
            and kw.get("logits_processor") is None and not kw.get("mirostat_mode"))


class GreedyGrammarSampler:
    """The grammar-allowed token with the highest logit, as llama.cpp's chain
    (grammar, then greedy) picks it, with the grammar run on one token when the
    best token is allowed. ``fallbacks`` counts the tokens that needed the mask."""

    def __init__(self, llama_cpp, vocab, n_vocab: int, grammar) -> None:  # type: ignore[no-untyped-def]
        import numpy as np

        self._lc, self._np, self._n = llama_cpp, np, n_vocab
        self._grammar = llama_cpp.llama_sampler_init_grammar(
            vocab, grammar._grammar.encode("utf-8"), grammar._root.encode("utf-8"))
        self._one = (llama_cpp.llama_token_data * 1)()
        self._one_array = llama_cpp.llama_token_data_array(
            data=self._one, size=1, selected=-1, sorted=False)
        self._all = None
        self.checked = 0
        self.fallbacks = 0

    def sample(self, ctx, idx: int = -1) -> int:  # type: ignore[no-untyped-def]
        lc, np = self._lc, self._np
        logits = np.ctypeslib.as_array(lc.llama_get_logits_ith(ctx.ctx, idx), shape=(self._n,))
        best = int(np.argmax(logits))
        self.checked += 1
        self._one[0].id, self._one[0].logit, self._one[0].p = best, float(logits[best]), 0.0
        self._one_array.size, self._one_array.selected = 1, -1
        lc.llama_sampler_apply(self._grammar, ctypes.byref(self._one_array))
        if self._one[0].logit == float("-inf"):
            best = self._masked_best(logits)
        lc.llama_sampler_accept(self._grammar, best)
        return best

    def _masked_best(self, logits) -> int:  # type: ignore[no-untyped-def]
        lc, np = self._lc, self._np
        self.fallbacks += 1
        if self._all is None:  # made once; the grammar never moves or renumbers entries
            dtype = np.dtype([("id", np.intc), ("logit", np.single), ("p", np.single)],
                             align=True)
            self._all = np.zeros(self._n, dtype=dtype)
            self._all["id"] = np.arange(self._n, dtype=np.intc)
        arr = self._all
        arr["logit"] = logits
        data = arr.ctypes.data_as(ctypes.POINTER(lc.llama_token_data))
        view = lc.llama_token_data_array(data=data, size=self._n, selected=-1, sorted=False)
        lc.llama_sampler_apply(self._grammar, ctypes.byref(view))
        # the grammar only sets refused tokens to -inf, in place and in order
        return int(arr["id"][int(np.argmax(arr["logit"]))])

    def close(self) -> None:
        if self._grammar is not None:
            self._lc.llama_sampler_free(self._grammar)
            self._grammar = None

    def __del__(self) -> None:
        self.close()
