"""How-to projects as hidden-precondition tasks, read from WikiHow articles.

Two layouts are read:

- JSON lines (``.jsonl`` / ``.json``), one article per line, the shape of
  crawled wikiHow corpora: ``title``, the steps either as ``steps`` or grouped
  in ``methods`` (or ``parts``) as ``{"name": ..., "steps": [...]}``, each
  step a string or ``{"headline": ..., "description": ...}``, and the
  "Things You'll Need" list as ``things_needed`` (also read under
  ``things_youll_need``, ``things_you_need`` or ``"Things You'll Need"``);
  optional ``id``, ``url``, ``intro``, ``tips``, ``warnings``.
- The wikiHow summarisation CSV (``wikihowAll.csv``: ``headline,title,text``):
  the steps are the headline's lines; the list is read from a "Things You'll
  Need" section in ``text`` when there is one.

As the paper filters, only articles with a "Things You'll Need" list and at
least four steps make tasks; every article left out is counted with its
reason. The latent preconditions are the things needed ("you have the
sandpaper"), some not held, each with the substitutes ``data/substitutions.csv``
allows; the decider is :func:`~veriplan.domains.hidden.task.resource_decider`.

The repository's ``data/howto.jsonl`` holds projects written for veriplan in
the JSON lines layout (results on it are not comparable with the paper's).
"""

from __future__ import annotations

import csv
import json
import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from veriplan.domains.hidden.common import (
    DATA,
    Candidate,
    Skipped,
    SubstitutionTable,
    TaskFileError,
    TaskSet,
    build_resource_task,
    cached_by_file,
    dedupe,
    item_name,
    open_text,
    read_substitutions,
)
from veriplan.domains.hidden.task import HiddenTask, mentions

if TYPE_CHECKING:
    from veriplan.core.jsonvalue import JSONValue
from veriplan.errors import ConfigError

FAMILY = "howto"
HOWTO = DATA / "howto.jsonl"
MIN_STEPS = 4  # the paper keeps articles with at least four steps
MIN_THINGS = 3
THINGS_KEYS = ("things_needed", "things_youll_need", "things_you_need",
               "Things You'll Need", "things you'll need")
_THINGS_MARK = re.compile(r"things\s+you(?:'|’)?ll\s+need\s*:?", re.IGNORECASE)
_BULLET = re.compile(r"^\s*(?:[-*•·]|\d+[.)])\s*")


@dataclass(frozen=True)
class Article:
    """One article: its steps in order (every method's, the headline of
    each) and its "Things You'll Need" list (None when it has none)."""

    id: str
    title: str
    steps: tuple[str, ...]
    things_needed: tuple[str, ...] | None
    file: str
    line: int
    url: str = ""


@dataclass(frozen=True)
class ArticleFile:
    articles: tuple[Article, ...]
    skipped: tuple[Skipped, ...]  # malformed ones, with on_error="skip"
    rows: int


def read_howto(path: str | Path = HOWTO, *, limit: int | None = None,
               on_error: str = "raise") -> ArticleFile:
    """Read WikiHow articles (JSON lines, or the ``headline,title,text`` CSV by
    its ``.csv`` suffix). A malformed line raises
    :class:`~veriplan.domains.hidden.common.TaskFileError` naming the file, the
    line and the field; ``on_error="skip"`` records it and reads on."""
    if on_error not in ("raise", "skip"):
        raise ConfigError(f"on_error={on_error!r}: use 'raise' or 'skip'")
    return _read_howto(path, limit, on_error)


@cached_by_file
def _read_howto(path: Path, limit: int | None, on_error: str) -> ArticleFile:
    if path.suffix.lower() == ".csv":
        return _read_csv(path, limit, on_error)
    file = str(path)
    articles: list[Article] = []
    skipped: list[Skipped] = []
    rows = 0
    seen: dict[str, int] = {}
    with open_text(path) as f:
        for text in f:
            if limit is not None and len(articles) >= limit:
                break
            line = f.line
            if not text.strip():
                continue
            rows += 1
            try:
                articles.append(_article(text, file, line, seen))
            except TaskFileError as err:
                if on_error == "raise":
                    raise
                skipped.append(Skipped(file, line, "", str(err)))
    return ArticleFile(tuple(articles), tuple(skipped), rows)


def _article(text: str, file: str, line: int, seen: dict[str, int]) -> Article:
    try:
        obj = json.loads(text)
    except ValueError as exc:
        raise TaskFileError(f"not valid JSON: {exc}", file=file, line=line) from None
    if not isinstance(obj, dict):
        raise TaskFileError(f"an article is a JSON object, not {type(obj).__name__}",
                            file=file, line=line)
    title = obj.get("title")
    if not isinstance(title, str) or not title.strip():
        raise TaskFileError("missing or not a non-empty string", file=file, line=line,
                            field="title")
    aid = obj.get("id", line)
    if not isinstance(aid, (str, int)) or isinstance(aid, bool) or not str(aid).strip():
        raise TaskFileError("not a string or a number", file=file, line=line, field="id")
    aid = str(aid).strip()
    if aid in seen:
        raise TaskFileError(f"id {aid} repeats line {seen[aid]}", file=file, line=line,
                            field="id")
    seen[aid] = line
    steps = _steps(obj, file, line)
    things = None
    for key in THINGS_KEYS:
        if key in obj and obj[key] is not None:
            value = obj[key]
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise TaskFileError("not a list of strings", file=file, line=line, field=key)
            things = tuple(v.strip() for v in value if v.strip())
            break
    url = obj.get("url", "")
    return Article(aid, title.strip(), steps, things, file, line,
                   url if isinstance(url, str) else "")


def _steps(obj: dict[str, JSONValue], file: str, line: int) -> tuple[str, ...]:
    groups: list[tuple[str, JSONValue]] = []
    if "steps" in obj:
        groups.append(("steps", obj["steps"]))
    for key in ("methods", "parts"):
        if key in obj:
            methods = obj[key]
            if not isinstance(methods, list):
                raise TaskFileError("not a list of methods", file=file, line=line, field=key)
            for i, m in enumerate(methods):
                if not isinstance(m, dict) or "steps" not in m:
                    raise TaskFileError('a method is an object with "steps"', file=file,
                                        line=line, field=f"{key}[{i}]")
                groups.append((f"{key}[{i}].steps", m["steps"]))
    if not groups:
        raise TaskFileError('no "steps" and no "methods"', file=file, line=line,
                            field="steps")
    out = []
    for where, steps in groups:
        if not isinstance(steps, list):
            raise TaskFileError("not a list of steps", file=file, line=line, field=where)
        for j, s in enumerate(steps):
            if isinstance(s, dict):
                head = s.get("headline", s.get("step", s.get("text")))
                if not isinstance(head, str) or not head.strip():
                    raise TaskFileError("a step object needs a non-empty \"headline\"",
                                        file=file, line=line, field=f"{where}[{j}]")
                s = head
            elif not isinstance(s, str):
                raise TaskFileError(f"a step is a string or an object, not "
                                    f"{type(s).__name__}", file=file, line=line,
                                    field=f"{where}[{j}]")
            if s.strip():
                out.append(" ".join(s.split()))
    return tuple(out)


def _read_csv(path: Path, limit: int | None, on_error: str) -> ArticleFile:
    """The wikiHow summarisation CSV (``headline,title,text``)."""
    file = str(path)
    articles: list[Article] = []
    skipped: list[Skipped] = []
    rows = 0
    with open_text(path) as f:
        reader = csv.reader(f)
        try:
            header = next(reader, None)
        except csv.Error as exc:
            raise TaskFileError(f"not valid CSV: {exc}", file=file, line=1) from None
        cols = {h.strip().lower(): i for i, h in enumerate(header or [])}
        for name in ("headline", "title", "text"):
            if name not in cols:
                raise TaskFileError("missing from the header (the wikiHow CSV's columns "
                                    "are headline,title,text)", file=file, line=1, field=name)
        while limit is None or len(articles) < limit:
            line = reader.line_num + 1
            try:
                row = next(reader)
            except StopIteration:
                break
            except csv.Error as exc:
                err = TaskFileError(f"not valid CSV: {exc}", file=file, line=line)
                if on_error == "raise":
                    raise err from None
                skipped.append(Skipped(file, line, "", str(err)))
                continue
            if not any(c.strip() for c in row):
                continue
            rows += 1
            if len(row) != len(header or []):
                err = TaskFileError(f"{len(row)} fields, the header has {len(header or [])}",
                                    file=file, line=line)
                if on_error == "raise":
                    raise err
                skipped.append(Skipped(file, line, "", str(err)))
                continue
            title = row[cols["title"]].strip()
            if not title:
                err = TaskFileError("empty", file=file, line=line, field="title")
                if on_error == "raise":
                    raise err
                skipped.append(Skipped(file, line, "", str(err)))
                continue
            steps = tuple(s for s in (" ".join(x.strip(" ,").split())
                                      for x in row[cols["headline"]].splitlines()) if s)
            articles.append(Article(str(rows - 1), title, steps,
                                    things_from_text(row[cols["text"]]), file, line))
    return ArticleFile(tuple(articles), tuple(skipped), rows)


def things_from_text(text: str) -> tuple[str, ...] | None:
    """The items after a "Things You'll Need" heading, up to a blank line
    (None when the text has no such heading)."""
    m = _THINGS_MARK.search(text)
    if not m:
        return None
    items = []
    for raw in text[m.end():].lstrip(" \t").splitlines():
        if not raw.strip():
            if items:
                break
            continue
        items.append(_BULLET.sub("", raw).strip())
    return tuple(i for i in items if i)


# ----- tasks -------------------------------------------------------------------------------
def candidates(article: Article) -> list[Candidate]:
    out = []
    for item in dedupe(item_name(t) for t in article.things_needed or ()):
        used = any(mentions(s, item) for s in article.steps)
        out.append(Candidate(item, "resource", f"you have the {item}", used))
    return out


def unsuitable(article: Article) -> str | None:
    """Why an article makes no task (None: it makes tasks)."""
    if not article.things_needed:
        return "no Things You'll Need list"
    if len(article.steps) < MIN_STEPS:
        return f"{len(article.steps)} steps (at least {MIN_STEPS} needed)"
    if len(candidates(article)) < MIN_THINGS:
        return f"fewer than {MIN_THINGS} things needed"
    return None


def goal_of(title: str) -> str:
    t = re.sub(r"^how\s+to\s+", "", title.strip(), flags=re.IGNORECASE)
    t = re.sub(r"\d+$", "", t).strip()  # wikihowAll.csv titles end in a number
    return t or title.strip()


_CUT = re.compile(r"\s+(?:with|without|from|in|on|into|for|to|by|using|and|at)\s+.*$",
                  re.IGNORECASE)


def artefact(goal: str) -> str:
    """What an imperative goal makes or works on (the task's r*): the object
    after its verb, up to a preposition ("Build a Birdhouse" -> "birdhouse",
    "Clean Windows Without Streaks" -> "windows", "Make a toy car from a
    wooden table" -> "toy car")."""
    rest = goal.strip().split(maxsplit=1)
    obj = rest[1] if len(rest) > 1 else goal.strip()
    obj = _CUT.sub("", obj)
    obj = re.sub(r"^(?:a|an|the|some|your|my)\s+", "", obj.strip(), flags=re.IGNORECASE)
    return obj.strip(" .").lower() or goal.strip().lower()


def article_task(article: Article, variant: int = 0, *, seed: int = 0,
                 table: SubstitutionTable | None = None) -> HiddenTask:
    """Variant ``variant`` of the task an article makes (deterministic in the
    article, the variant and ``seed``)."""
    table = table or read_substitutions()
    rng = random.Random(f"{FAMILY}:{article.id}:{article.title}:{variant}:{seed}")
    return build_resource_task(
        id=task_id(article, variant), family=FAMILY, goal=goal_of(article.title),
        steps=article.steps, candidates=candidates(article),
        substitutes=lambda name: table.substitutes(name, FAMILY), rng=rng,
        product=artefact(goal_of(article.title)),
        payload={"title": article.title, "source": article.file, "line": article.line,
                 "url": article.url, "things_needed": article.things_needed,
                 "steps": article.steps, "variant": variant, "seed": seed})


def task_id(article: Article, variant: int) -> str:
    return f"howto-{article.id}-v{variant}"


@dataclass(frozen=True)
class Usable:
    articles: tuple[Article, ...]
    skipped: tuple[Skipped, ...]
    rows: int


def usable_articles(path: str | Path = HOWTO, *, limit: int | None = None,
                    on_error: str = "raise") -> Usable:
    """The articles of ``path`` that make tasks; every one left out is in
    ``skipped`` with its reason."""
    read = read_howto(path, limit=limit, on_error=on_error)
    keep, skipped = [], list(read.skipped)
    for a in read.articles:
        why = unsuitable(a)
        if why is None:
            keep.append(a)
        else:
            skipped.append(Skipped(a.file, a.line, a.title, why))
    return Usable(tuple(keep), tuple(skipped), read.rows)


def howto_tasks(path: str | Path | None = None, *, variants: int = 3, seed: int = 0,
                limit: int | None = None, on_error: str = "raise") -> TaskSet:
    """Every task an article file makes (the repository's file by default):
    ``variants`` per usable article."""
    if variants < 1:
        raise ConfigError(f"variants={variants}: at least 1")
    src = Path(path) if path is not None else HOWTO
    usable = usable_articles(src, limit=limit, on_error=on_error)
    table = read_substitutions()
    tasks = tuple(article_task(a, v, seed=seed, table=table)
                  for a in usable.articles for v in range(variants))
    return TaskSet(tasks, usable.skipped, str(src))
