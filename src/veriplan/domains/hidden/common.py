"""What the natural-language families share: typed errors that name the file,
the line and the field; skipped-item records; the substitution table and the
equipment vocabulary kept as data in the package; list-item names; and the
one builder that turns a procedure and its resources into a
:class:`~veriplan.domains.hidden.task.HiddenTask`.
"""

from __future__ import annotations

import csv
import hashlib
import math
import random
import re
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TypeVar

from veriplan.domains.hidden.task import (
    HiddenTask,
    Latent,
    TaskPayload,
    phrase_pattern,
    resource_decider,
    tokens,
    uses,
    words,
)
from veriplan.errors import DataError, SourceError

R = TypeVar("R")

DATA = Path(__file__).resolve().parent / "data"
CONSTRAINT = "use only what you have or an allowed substitute"


class TaskFileError(SourceError, DataError):
    """A task source file (recipes CSV, how-to JSON lines, substitution table)
    that is malformed: ``file``, ``line`` (1-based, the line a CSV record or a
    JSON line starts on) and ``field`` name the place."""

    def __init__(self, message: str, *, file: str | Path, line: int | None = None,
                 field: str | None = None) -> None:
        self.field = field
        text = f"field {field!r}: {message}" if field is not None else message
        super().__init__(text, file=str(file), line=line)


@dataclass(frozen=True)
class Skipped:
    """An item a reader or builder left out, and why (nothing is dropped
    without a record)."""

    file: str
    line: int | None
    item: str
    reason: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line is not None else self.file
        return f"{where}: {self.item or '(untitled)'}: {self.reason}"


@dataclass(frozen=True)
class TaskSet:
    """The tasks a family built from a source, with what it left out."""

    tasks: tuple[HiddenTask, ...]
    skipped: tuple[Skipped, ...] = ()
    source: str = ""

    def __len__(self) -> int:
        return len(self.tasks)

    def __iter__(self):
        return iter(self.tasks)

    def by_id(self) -> dict[str, HiddenTask]:
        return {t.id: t for t in self.tasks}

    def reasons(self) -> dict[str, int]:
        """How many items were skipped for each reason."""
        out: dict[str, int] = {}
        for s in self.skipped:
            out[s.reason] = out.get(s.reason, 0) + 1
        return out


def file_digest(paths: Iterable[str | Path]) -> str:
    """sha256 (first 16 hex) over the files' names and contents (cached on
    path, size and modification time: a large file is hashed once)."""
    digest = hashlib.sha256()
    for p in paths:
        path = Path(p)
        digest.update(path.name.encode())
        digest.update(_file_hash(str(path), *_stamp(path)).encode())
    return digest.hexdigest()[:16]


def _stamp(path: Path) -> tuple[int, int]:
    try:
        st = path.stat()
    except OSError as exc:
        raise DataError(f"cannot read {path}: {exc.strerror}") from None
    return st.st_size, st.st_mtime_ns


@lru_cache(maxsize=256)
def _file_hash(path: str, size: int, mtime: int) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def cached_by_file(fn: Callable[..., R]) -> Callable[..., R]:
    """Memoise ``fn(path, *args)`` per file version (path, size, mtime): a
    file read once is not read again until it changes."""
    memo = lru_cache(maxsize=32)(lambda path, stamp, *args: fn(Path(path), *args))

    def wrapper(path: str | Path, *args: Hashable) -> R:
        p = Path(path).expanduser().resolve()
        return memo(str(p), _stamp(p), *args)

    wrapper.cache_clear = memo.cache_clear  # type: ignore[attr-defined]
    wrapper.__doc__ = fn.__doc__
    return wrapper


class TextLines:
    """A file's lines, decoded as UTF-8 one at a time (a bad byte is reported
    at its line); a context manager, an iterator, and what :mod:`csv` reads."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.line = 0
        try:
            self._f = open(path, "rb")  # noqa: SIM115 - closed by __exit__
        except OSError as exc:
            raise DataError(f"cannot read {path}: {exc.strerror}") from None

    def __enter__(self) -> TextLines:
        return self

    def __exit__(self, *exc: object) -> None:
        self._f.close()

    def __iter__(self) -> TextLines:
        return self

    def __next__(self) -> str:
        raw = self._f.readline()
        if not raw:
            raise StopIteration
        self.line += 1
        try:
            return raw.decode("utf-8-sig" if self.line == 1 else "utf-8")
        except UnicodeDecodeError as exc:
            raise TaskFileError(f"not UTF-8 text ({exc.reason} at byte {exc.start} of the "
                                "line)", file=self.path, line=self.line) from None


def open_text(path: Path) -> TextLines:
    return TextLines(path)


# ----- names -----------------------------------------------------------------------------
_PARENS = re.compile(r"\([^)]*\)|\[[^\]]*\]")
_NUMBER = r"(?:\d+(?:[./-]\d+)*\b|\d*\s*[½⅓⅔¼¾⅛]|(?:one|two|three|four|five|six|a dozen|a few)\b)"
_UNIT = (r"(?:cups?|c\.|tablespoons?|tbsps?\.?|teaspoons?|tsps?\.?|ounces?|oz\.?|pounds?|"
         r"lbs?\.?|grams?|g|kg|ml|liters?|litres?|quarts?|pints?|gallons?|inch(?:es)?|"
         r"in\.|feet|foot|ft\.?|yards?|meters?|cm|mm|sheets?|pieces?|rolls?|bags?|boxes|box|"
         r"cans?|jars?|bottles?|packages?|pkgs?\.?|sticks?|cloves?|pinch|dash|handfuls?|"
         r"sets?|pairs?|spools?|skeins?|tubes?|bunch(?:es)?|heads?|slices?|strips?)")
_LEAD = re.compile(
    rf"^(?:(?:about|approximately|roughly|at least)\s+)?(?:{_NUMBER}(?:\s*-\s*{_NUMBER})?"
    rf"[\s-]*(?:{_UNIT}\b[\s.]*)?(?:of\s+)?|(?:a|an|some|several|many|the|one)\s+"
    rf"(?:{_UNIT}\s+of\s+)?)", re.IGNORECASE)
_TAIL = re.compile(r"\s*(?:,|;|:| - | – | for | to | if | with | or more| optional).*$",
                   re.IGNORECASE)


def item_name(item: str) -> str:
    """The name a list item is about: "2 cups all-purpose flour" -> "all-purpose
    flour", "A pair of scissors" -> "scissors", "Sandpaper (120 grit)" ->
    "sandpaper", "Wood glue, optional" -> "wood glue"."""
    text = _PARENS.sub(" ", item).strip().strip("*-•· ").strip()
    text = _TAIL.sub("", text)
    for _ in range(3):
        m = _LEAD.match(text)
        if not m or not m.group(0):
            break
        text = text[m.end():].lstrip()
    text = re.sub(r"\s+", " ", text).strip(" .,:;").lower()
    return text


def with_article(name: str) -> str:
    """"whisk" -> "a whisk", "oven" -> "an oven"; plural and mass-like names
    (ending in s) as they are."""
    if name.endswith("s") and not name.endswith("ss"):
        return name
    return ("an " if name[:1] in "aeiou" else "a ") + name


# ----- substitutions and vocabulary --------------------------------------------------------
@dataclass(frozen=True)
class Substitution:
    item: str
    substitutes: tuple[str, ...]
    family: str  # "recipes" | "howto"
    note: str
    line: int


@dataclass(frozen=True)
class SubstitutionTable:
    """Common, checkable substitutions: item -> what may stand in for it, per
    family, each with a short note (read from ``data/substitutions.csv``)."""

    entries: tuple[Substitution, ...]
    file: str = ""
    _index: dict[tuple[str, frozenset[str]], Substitution] = field(
        default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        for e in self.entries:
            self._index.setdefault((e.family, words(e.item)), e)

    def get(self, name: str, family: str) -> Substitution | None:
        """The entry for ``name`` (matched on its content words, so "eggs"
        finds "egg") in ``family``."""
        return self._index.get((family, words(name)))

    def substitutes(self, name: str, family: str) -> tuple[str, ...]:
        e = self.get(name, family)
        return e.substitutes if e else ()

    def __len__(self) -> int:
        return len(self.entries)


FAMILIES = ("recipes", "howto")
_SUB_COLUMNS = ("item", "substitutes", "family", "note")


def read_substitutions(path: str | Path | None = None) -> SubstitutionTable:
    """Read a substitution table (CSV: item, substitutes separated by ``|``,
    family, note). A malformed row raises :class:`TaskFileError` naming the
    line and the field."""
    return _read_substitutions(path or DATA / "substitutions.csv")


@cached_by_file
def _read_substitutions(path: Path) -> SubstitutionTable:
    entries: list[Substitution] = []
    seen: dict[tuple[str, frozenset[str]], int] = {}
    with open_text(path) as f:
        reader = csv.reader(f)
        try:
            header = next(reader, None)
        except csv.Error as exc:
            raise TaskFileError(f"not valid CSV: {exc}", file=path, line=1) from None
        if header is None or tuple(h.strip() for h in header) != _SUB_COLUMNS:
            raise TaskFileError(f"the header must be {','.join(_SUB_COLUMNS)}", file=path,
                                line=1)
        while True:
            line = reader.line_num + 1
            try:
                row = next(reader)
            except StopIteration:
                break
            except csv.Error as exc:
                raise TaskFileError(f"not valid CSV: {exc}", file=path, line=line) from None
            if not any(c.strip() for c in row):
                continue
            if len(row) != len(_SUB_COLUMNS):
                raise TaskFileError(f"{len(row)} fields, the header has {len(_SUB_COLUMNS)}",
                                    file=path, line=line)
            item, subs, family, note = (c.strip() for c in row)
            if not item:
                raise TaskFileError("empty", file=path, line=line, field="item")
            alts = tuple(s.strip() for s in subs.split("|") if s.strip())
            if not alts:
                raise TaskFileError("no substitute given", file=path, line=line,
                                    field="substitutes")
            if family not in FAMILIES:
                raise TaskFileError(f"{family!r}: use one of {', '.join(FAMILIES)}",
                                    file=path, line=line, field="family")
            if not note:
                raise TaskFileError("empty: say what to mind when substituting", file=path,
                                    line=line, field="note")
            key = (family, words(item))
            if key in seen:
                raise TaskFileError(f"{item!r} is already listed on line {seen[key]}",
                                    file=path, line=line, field="item")
            seen[key] = line
            entries.append(Substitution(item, alts, family, note, line))
    return SubstitutionTable(tuple(entries), str(path))


def read_vocabulary(path: str | Path) -> tuple[str, ...]:
    """A vocabulary file: one name per line, ``#`` starts a comment."""
    return _read_vocabulary(path)


@cached_by_file
def _read_vocabulary(path: Path) -> tuple[str, ...]:
    out = []
    with open_text(path) as f:
        for line in f:
            name = line.split("#", 1)[0].strip().lower()
            if name:
                out.append(name)
    return tuple(out)


class PhraseFinder:
    """Finds the names of a vocabulary in a text, longest first ("baking
    sheet" before "sheet"), on content words in order."""

    def __init__(self, names: Iterable[str]) -> None:
        self._by_first: dict[str, list[tuple[tuple[str, ...], str]]] = {}
        for name in names:
            seq = tokens(name)
            if seq:
                self._by_first.setdefault(seq[0], []).append((seq, name))
        for options in self._by_first.values():
            options.sort(key=lambda o: -len(o[0]))

    def find(self, text: str) -> list[str]:
        seq, out, i = tokens(text), [], 0
        while i < len(seq):
            for phrase, name in self._by_first.get(seq[i], ()):
                if seq[i:i + len(phrase)] == phrase:
                    out.append(name)
                    i += len(phrase)
                    break
            else:
                i += 1
        return out


# ----- building a task ---------------------------------------------------------------------
@dataclass(frozen=True)
class Candidate:
    """A resource a procedure may need: ``name`` (the latent's subject),
    ``kind`` (the latent's kind: resource or equipment), ``text`` (how the prompt
    states that the user has it), ``mentioned`` (a reference step names it)."""

    name: str
    kind: str
    text: str
    mentioned: bool


def dedupe(names: Iterable[str]) -> list[str]:
    """Names in order, without repeats (compared on content words)."""
    seen: set[frozenset[str]] = set()
    out = []
    for n in names:
        key = words(n)
        if key and key not in seen:
            seen.add(key)
            out.append(n)
    return out


def adapt_step(step: str, name: str, substitute: str, keep: Sequence[str] = ()) -> str:
    """``step`` with ``name`` replaced by ``substitute`` ("Cream the butter"
    -> "Cream the margarine"), except inside the longer names in ``keep``
    (things the user has: "paint tray" when "paint" is missing). A mention it
    does not rewrite (the name as the step's first word, a verb: "Whisk the
    eggs") gets the substitute named beside it."""
    pat = phrase_pattern(name)
    if pat is None:
        return step
    spans = [m.span() for k in keep if words(name) < words(k)
             for m in (phrase_pattern(k) or re.compile("(?!)")).finditer(step)]
    start = len(step) - len(step.lstrip())

    def swap(m: re.Match[str]) -> str:
        if m.start() == start or any(a <= m.start() and m.end() <= b for a, b in spans):
            return m.group(0)
        return substitute

    out = pat.sub(swap, step)
    # "an iron" -> "a hair straightener", not "an hair straightener"
    out = re.sub(rf"\b([Aa])n? (?={re.escape(substitute)})",
                 lambda m: m.group(1) + ("n " if substitute[:1].lower() in "aeiou" else " "),
                 out)
    if uses(out, name, keep):
        out = out.rstrip(". ") + f" (use {substitute} instead of {name})."
    return out


def build_resource_task(*, id: str, family: str, goal: str, steps: Sequence[str],
                        candidates: Sequence[Candidate], substitutes: Callable[[str], tuple],
                        rng: random.Random, m_range: tuple[int, int] = (3, 8),
                        max_missing: int = 3, payload: TaskPayload | None = None,
                        product: str = "") -> HiddenTask:
    """A natural-language task: m latent preconditions (``m_range``, at most
    the candidates there are) drawn from the candidates, those a step names
    first; 1 to ``max_missing`` of them (never more than half, rounded up)
    do not hold, chosen among named ones with substitutes in the table (none
    when no candidate has any); the rest of the candidates are known facts. The
    reference plan is ``steps`` with each missing resource replaced by its
    first substitute, so it violates nothing. ``product`` is what the task
    makes (r*); what it is made with are the candidates of kind "resource"
    (ingredients, materials) that a step names."""
    lo, hi = m_range
    if len(candidates) < lo:
        raise ValueError(f"{id}: {len(candidates)} candidates, at least {lo} needed")
    m = rng.randint(lo, min(hi, len(candidates)))
    named = [c for c in candidates if c.mentioned]
    other = [c for c in candidates if not c.mentioned]
    chosen = rng.sample(named, m) if len(named) >= m else named + rng.sample(other, m - len(named))
    order = {c.name: i for i, c in enumerate(candidates)}
    chosen.sort(key=lambda c: order[c.name])

    # Which do not hold: resources a step names that have a substitute.
    eligible = [c for c in chosen if c.mentioned and substitutes(c.name)]
    want = min(max_missing, len(eligible), math.ceil(m / 2))
    n_missing = rng.randint(1, want) if want else 0
    missing: dict[str, tuple[str, ...]] = {}
    for c in rng.sample(eligible, len(eligible)):
        if len(missing) == n_missing:
            break
        key = words(c.name)
        # A substitute must not need what is missing ("garden soil mixed with
        # compost" when compost is missing), nor be missing itself.
        alts = tuple(s for s in substitutes(c.name)
                     if not any(words(n) <= words(s) for n in missing))
        if not alts or any(key <= words(s) for v in missing.values() for s in v):
            continue
        missing[c.name] = alts

    latent = tuple(
        Latent(f"p{i}", c.text, c.name, c.name not in missing, missing.get(c.name, ()),
               c.kind)
        for i, c in enumerate(chosen, 1))
    chosen_names = {c.name for c in chosen}
    known = tuple(c.text for c in candidates if c.name not in chosen_names)
    resources = dedupe([*(c.name for c in candidates), *(a for v in missing.values()
                                                          for a in v)])
    held = [r for r in resources if r not in missing]
    reference = []
    for s in steps:
        for name, alts in missing.items():
            if uses(s, name, held):
                s = adapt_step(s, name, alts[0], held)
        reference.append(s)
    made_with = tuple(c.name for c in candidates if c.kind == "resource" and c.mentioned)
    return HiddenTask(id, family, goal, known, latent, (CONSTRAINT,), tuple(reference),
                      resource_decider, tuple(resources), None, TaskPayload(**(payload or {})),
                      product=product or goal, made_with=made_with)
