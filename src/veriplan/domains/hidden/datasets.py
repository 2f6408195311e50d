"""The three hidden-precondition families as benchmark datasets
(:mod:`veriplan.bench.datasets` registers ``sqbcp_pddl_hidden``,
``sqbcp_recipes`` and ``sqbcp_howto`` from here).

Construction is cheap: a recipes or how-to dataset reads its file once (cached
per file version) to know its instances; a hidden-fact dataset lists its
problem files. Each instance builds its task on first use
(``instance.problem("hidden")``; a reference plan is searched for then) and
keeps it for the process. Versions hash the source files.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from veriplan.core.problems import Dataset, ProblemKind, wrong_kind
from veriplan.domains.hidden import howto, pddl_hidden, recipes
from veriplan.domains.hidden.common import DATA, cached_by_file, file_digest
from veriplan.domains.hidden.task import HiddenTask
from veriplan.errors import ConfigError, DataError

PROBLEM = ProblemKind.HIDDEN
VARIANTS = 3  # tasks per recipe or article


@dataclass(frozen=True)
class HiddenInstance:
    """One hidden-precondition task of a dataset. ``source`` is the file the
    task comes from (the recipes CSV, the how-to file, the PDDL problem);
    ``key`` says which task of it (a recipe or article id and the variant;
    for PDDL, the domain file and the PlanBench config)."""

    id: str
    dataset: str
    family: str
    source: str
    key: tuple[str, ...]
    seed: int = 0
    limit: int | None = None

    def task(self) -> HiddenTask:
        return _task(self.family, self.source, self.key, self.seed, self.limit, self.id)

    def problem(self, kind: ProblemKind | str = PROBLEM) -> HiddenTask:
        """The :class:`~veriplan.domains.hidden.task.HiddenTask` (``kind`` must
        be "hidden")."""
        if kind != PROBLEM:
            raise DataError(wrong_kind(self.dataset, PROBLEM, kind))
        return self.task()


@lru_cache(maxsize=4096)
def _task(family: str, source: str, key: tuple[str, ...], seed: int, limit: int | None,
          tid: str) -> HiddenTask:
    if family == recipes.FAMILY:
        rid, variant = key
        recipe = _recipes_by_id(source, limit).get(rid)
        if recipe is None:
            raise DataError(f"{source}: no usable recipe with index {rid} (has the file "
                            "changed?)")
        return recipes.recipe_task(recipe, int(variant), seed=seed)
    if family == howto.FAMILY:
        aid, variant = key
        article = _articles_by_id(source, limit).get(aid)
        if article is None:
            raise DataError(f"{source}: no usable article with id {aid} (has the file "
                            "changed?)")
        return howto.article_task(article, int(variant), seed=seed)
    if family == pddl_hidden.FAMILY:
        domain, config = key
        return pddl_hidden.hidden_task(domain, source, config or None, id=tid, seed=seed)
    raise ConfigError(f"unknown hidden-precondition family {family!r}")


@cached_by_file
def _recipes_by_id(source: Path, limit: int | None) -> dict:
    return {r.id: r for r in recipes.usable_recipes(source, limit=limit).recipes}


@cached_by_file
def _articles_by_id(source: Path, limit: int | None) -> dict:
    return {a.id: a for a in howto.usable_articles(source, limit=limit).articles}


def recipes_dataset(path: str | Path | None = None, *, name: str = "sqbcp_recipes",
                    variants: int = VARIANTS, seed: int = 0, limit: int | None = None
                    ) -> Dataset:
    """Recipe tasks from a RecipeNLG-format CSV (the repository's file by
    default): ``variants`` per usable recipe; ``limit`` reads only the first
    that many recipes of a large file."""
    src = Path(path).expanduser() if path is not None else recipes.RECIPES
    if not src.is_file():
        raise DataError(f"recipes file {src} does not exist")
    if variants < 1:
        raise ConfigError(f"variants={variants}: at least 1")
    usable = recipes.usable_recipes(src, limit=limit)
    insts = tuple(HiddenInstance(recipes.task_id(r, v), name, recipes.FAMILY, str(src),
                                 (r.id, str(v)), seed, limit)
                  for r in usable.recipes for v in range(variants))
    return Dataset(name, insts, _version(src, variants, seed, limit))  # type: ignore[arg-type]


def howto_dataset(path: str | Path | None = None, *, name: str = "sqbcp_howto",
                  variants: int = VARIANTS, seed: int = 0, limit: int | None = None
                  ) -> Dataset:
    """How-to tasks from WikiHow articles (JSON lines or the wikiHow CSV; the
    repository's file by default)."""
    src = Path(path).expanduser() if path is not None else howto.HOWTO
    if not src.is_file():
        raise DataError(f"how-to file {src} does not exist")
    if variants < 1:
        raise ConfigError(f"variants={variants}: at least 1")
    usable = howto.usable_articles(src, limit=limit)
    insts = tuple(HiddenInstance(howto.task_id(a, v), name, howto.FAMILY, str(src),
                                 (a.id, str(v)), seed, limit)
                  for a in usable.articles for v in range(variants))
    return Dataset(name, insts, _version(src, variants, seed, limit))  # type: ignore[arg-type]


def pddl_hidden_dataset(root: str | Path, *, name: str = "sqbcp_pddl_hidden",
                        domains: tuple[str, ...] = tuple(pddl_hidden.SOURCES), seed: int = 0,
                        ) -> Dataset:
    """Hidden-fact tasks over PlanBench's Blocksworld and Logistics problems
    (``root`` is the data directory holding ``planbench/``): one task per
    problem, ids ``blocksworld/instance-N`` and ``logistics/instance-N``."""
    pb = Path(root) / "planbench"
    insts, files = [], []
    for d in domains:
        dom, _, cfg, probs = pddl_hidden.problem_files(pb, d)
        files += [dom, *probs, *([cfg] if cfg else [])]
        insts += [HiddenInstance(f"{d}/{f.stem}", name, pddl_hidden.FAMILY, str(f),
                                 (str(dom), str(cfg) if cfg else ""), seed) for f in probs]
    # "-b2": tasks built on a domain object of their own (order-independent; the
    # first builder gave 6 of the first 50 Blocksworld tasks other facts or plans)
    version = file_digest(files) + "-b2"
    if seed or pddl_hidden.CAP != 6:
        version += f"-s{seed}c{pddl_hidden.CAP}"
    return Dataset(name, tuple(insts), version)  # type: ignore[arg-type]


def _version(src: Path, variants: int, seed: int, limit: int | None) -> str:
    """The source file, the substitution table and the equipment vocabulary,
    hashed; the settings that change the tasks appended."""
    v = file_digest([src, DATA / "substitutions.csv", recipes.EQUIPMENT])
    extra = "".join(s for s in (f"-v{variants}" if variants != VARIANTS else "",
                                f"-s{seed}" if seed else "",
                                f"-n{limit}" if limit is not None else ""))
    return v + extra


# Registry factories: root -> Dataset (the natural-language families need no data
# directory; their files are in the package).
def sqbcp_pddl_hidden(root: Path) -> Dataset:
    return pddl_hidden_dataset(root)


def sqbcp_recipes(root: Path | None = None) -> Dataset:
    return recipes_dataset()


def sqbcp_howto(root: Path | None = None) -> Dataset:
    return howto_dataset()
