"""Recipes as hidden-precondition tasks, read from RecipeNLG's published CSV
format: an unnamed index column, ``title``, ``ingredients`` (a JSON list of
strings), ``directions`` (a JSON list of strings), ``link``, ``source`` and
``NER`` (a JSON list of the ingredient names).

A recipe with 4-10 directions and at least 3 resources (NER ingredients and
the equipment its directions name, from ``data/equipment.txt``) makes
``variants`` tasks: each draws 3-8 latent preconditions ("you have butter",
"you have a whisk"), some of which do not hold, each of those with the
substitutes ``data/substitutions.csv`` allows. A plan step names what it uses;
the decider is :func:`~veriplan.domains.hidden.task.resource_decider`.

The repository's ``data/recipes.csv`` holds recipes written for veriplan in
that format (results on it are not comparable with the paper's); pass the path
of RecipeNLG's ``full_dataset.csv`` to use the real one.
"""

from __future__ import annotations

import ast
import csv
import json
import random
from dataclasses import dataclass
from pathlib import Path

from veriplan.domains.hidden.common import (
    DATA,
    Candidate,
    PhraseFinder,
    Skipped,
    SubstitutionTable,
    TaskFileError,
    TaskSet,
    build_resource_task,
    cached_by_file,
    dedupe,
    open_text,
    read_substitutions,
    read_vocabulary,
    with_article,
)
from veriplan.domains.hidden.task import HiddenTask, mentions, words
from veriplan.errors import ConfigError

FAMILY = "recipes"
RECIPES = DATA / "recipes.csv"
EQUIPMENT = DATA / "equipment.txt"
REQUIRED = ("title", "ingredients", "directions", "NER")
OPTIONAL = ("link", "source")
INDEX_NAMES = ("", "unnamed: 0", "id", "index")
STEPS = (4, 10)  # directions per task (the paper: 4-10 steps)
MIN_RESOURCES = 3

if csv.field_size_limit() < 1 << 24:
    csv.field_size_limit(1 << 24)  # long recipes in the published file


@dataclass(frozen=True)
class Recipe:
    """One row: ``id`` is the index column (the row number when there is
    none); ``line`` the line the row starts on."""

    id: str
    title: str
    ingredients: tuple[str, ...]
    directions: tuple[str, ...]
    link: str
    source: str
    ner: tuple[str, ...]
    file: str
    line: int


@dataclass(frozen=True)
class RecipeFile:
    """What :func:`read_recipes` read: the recipes, the rows it skipped
    (malformed ones, with ``on_error="skip"``) and the rows it saw."""

    recipes: tuple[Recipe, ...]
    skipped: tuple[Skipped, ...]
    rows: int


def _string_list(text: str, file: str, line: int, name: str) -> tuple[str, ...]:
    raw = text.strip()
    try:
        value = json.loads(raw)
    except ValueError:
        try:
            value = ast.literal_eval(raw)  # a copy written with Python's repr
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            raise TaskFileError(f"not a list of strings: {raw[:60]!r}", file=file,
                                line=line, field=name) from None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise TaskFileError(f"not a list of strings: {raw[:60]!r}", file=file, line=line,
                            field=name)
    return tuple(v.strip() for v in value if v.strip())


def read_recipes(path: str | Path = RECIPES, *, limit: int | None = None,
                 on_error: str = "raise") -> RecipeFile:
    """Read a RecipeNLG-format CSV. A malformed row raises
    :class:`~veriplan.domains.hidden.common.TaskFileError` naming the file, the
    line and the field; ``on_error="skip"`` records it in ``skipped`` and reads
    on. ``limit`` stops after that many recipes."""
    if on_error not in ("raise", "skip"):
        raise ConfigError(f"on_error={on_error!r}: use 'raise' or 'skip'")
    return _read_recipes(path, limit, on_error)


@cached_by_file
def _read_recipes(path: Path, limit: int | None, on_error: str) -> RecipeFile:
    file = str(path)
    recipes: list[Recipe] = []
    skipped: list[Skipped] = []
    rows = 0
    with open_text(path) as f:
        reader = csv.reader(f)
        try:
            header = next(reader, None)
        except csv.Error as exc:
            raise TaskFileError(f"not valid CSV: {exc}", file=file, line=1) from None
        if header is None:
            raise TaskFileError("empty file: expected the header "
                                ",title,ingredients,directions,link,source,NER", file=file,
                                line=1)
        col = {h.strip(): i for i, h in enumerate(header)}
        lower = {h.strip().lower(): i for i, h in enumerate(header)}
        for name in REQUIRED:
            if name not in col and name.lower() not in lower:
                raise TaskFileError("missing from the header (RecipeNLG's columns are "
                                    ",title,ingredients,directions,link,source,NER)",
                                    file=file, line=1, field=name)
        at = {name: col.get(name, lower.get(name.lower())) for name in (*REQUIRED, *OPTIONAL)}
        index = next((i for i, h in enumerate(header) if h.strip().lower() in INDEX_NAMES),
                     None)
        seen: dict[str, int] = {}
        while limit is None or len(recipes) < limit:
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
            if not row or not any(c.strip() for c in row):
                continue
            rows += 1
            try:
                recipes.append(_recipe(row, header, at, index, file, line, rows, seen))
            except TaskFileError as err:
                if on_error == "raise":
                    raise
                skipped.append(Skipped(file, line, row[at["title"]] if len(row) > at["title"]
                                       else "", str(err)))
    return RecipeFile(tuple(recipes), tuple(skipped), rows)


def _recipe(row: list[str], header: list[str], at: dict[str, int | None], index: int | None,
            file: str, line: int, n: int, seen: dict[str, int]) -> Recipe:
    if len(row) != len(header):
        raise TaskFileError(f"{len(row)} fields, the header has {len(header)}", file=file,
                            line=line)

    def cell(name: str) -> str:
        i = at[name]
        return row[i] if i is not None else ""

    rid = row[index].strip() if index is not None else str(n - 1)
    if not rid:
        raise TaskFileError("empty index", file=file, line=line,
                            field=header[index] if index is not None else "")
    if rid in seen:
        raise TaskFileError(f"index {rid} repeats line {seen[rid]}", file=file, line=line,
                            field=header[index] if index is not None else "")
    seen[rid] = line
    title = cell("title").strip()
    if not title:
        raise TaskFileError("empty", file=file, line=line, field="title")
    return Recipe(rid, title, _string_list(cell("ingredients"), file, line, "ingredients"),
                  _string_list(cell("directions"), file, line, "directions"),
                  cell("link").strip(), cell("source").strip(),
                  _string_list(cell("NER"), file, line, "NER"), file, line)


# ----- tasks -------------------------------------------------------------------------------
def candidates(recipe: Recipe, finder: PhraseFinder) -> list[Candidate]:
    """The recipe's resources: NER ingredients, then the equipment its
    directions name."""
    out = []
    names = dedupe(n.lower() for n in recipe.ner)
    for name in names:
        used = any(mentions(d, name) for d in recipe.directions)
        out.append(Candidate(name, "resource", f"you have {name}", used))
    taken = {words(n) for n in names}
    for name in dedupe(n for d in recipe.directions for n in finder.find(d)):
        if words(name) not in taken:
            out.append(Candidate(name, "equipment", f"you have {with_article(name)}", True))
    return out


def unsuitable(recipe: Recipe, finder: PhraseFinder) -> str | None:
    """Why a recipe makes no task (None: it makes tasks)."""
    lo, hi = STEPS
    if not lo <= len(recipe.directions) <= hi:
        return f"{len(recipe.directions)} directions (tasks have {lo}-{hi})"
    if len(candidates(recipe, finder)) < MIN_RESOURCES:
        return f"fewer than {MIN_RESOURCES} ingredients and equipment"
    return None


def recipe_task(recipe: Recipe, variant: int = 0, *, seed: int = 0,
                table: SubstitutionTable | None = None,
                finder: PhraseFinder | None = None) -> HiddenTask:
    """Variant ``variant`` of the task a recipe makes (deterministic in the
    recipe, the variant and ``seed``)."""
    table = table or read_substitutions()
    finder = finder or equipment_finder()
    rng = random.Random(f"{FAMILY}:{recipe.id}:{recipe.title}:{variant}:{seed}")
    return build_resource_task(
        id=task_id(recipe, variant), family=FAMILY, goal=f"make {recipe.title}",
        steps=recipe.directions, candidates=candidates(recipe, finder),
        substitutes=lambda name: table.substitutes(name, FAMILY), rng=rng,
        product=recipe.title.lower(),
        payload={"title": recipe.title, "source": recipe.file, "line": recipe.line,
                 "link": recipe.link, "ingredients": recipe.ingredients,
                 "directions": recipe.directions, "variant": variant, "seed": seed})


def task_id(recipe: Recipe, variant: int) -> str:
    return f"recipe-{recipe.id}-v{variant}"


def equipment_finder(path: str | Path = EQUIPMENT) -> PhraseFinder:
    return _finder(path)


@cached_by_file
def _finder(path: Path) -> PhraseFinder:
    return PhraseFinder(read_vocabulary(path))


@dataclass(frozen=True)
class Usable:
    """The recipes of a file that make tasks, and what was left out."""

    recipes: tuple[Recipe, ...]
    skipped: tuple[Skipped, ...]
    rows: int


def usable_recipes(path: str | Path = RECIPES, *, limit: int | None = None,
                   on_error: str = "raise") -> Usable:
    """The recipes of ``path`` that make tasks (cached per file); every recipe
    left out is in ``skipped`` with its reason."""
    read = read_recipes(path, limit=limit, on_error=on_error)
    finder = equipment_finder()
    keep, skipped = [], list(read.skipped)
    for r in read.recipes:
        why = unsuitable(r, finder)
        if why is None:
            keep.append(r)
        else:
            skipped.append(Skipped(r.file, r.line, r.title, why))
    return Usable(tuple(keep), tuple(skipped), read.rows)


def recipes_tasks(path: str | Path | None = None, *, variants: int = 3, seed: int = 0,
                  limit: int | None = None, on_error: str = "raise") -> TaskSet:
    """Every task a recipe file makes (the repository's file by default):
    ``variants`` per usable recipe."""
    if variants < 1:
        raise ConfigError(f"variants={variants}: at least 1")
    src = Path(path) if path is not None else RECIPES
    usable = usable_recipes(src, limit=limit, on_error=on_error)
    table, finder = read_substitutions(), equipment_finder()
    tasks = tuple(recipe_task(r, v, seed=seed, table=table, finder=finder)
                  for r in usable.recipes for v in range(variants))
    return TaskSet(tasks, usable.skipped, str(src))
