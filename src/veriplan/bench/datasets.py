"""Datasets: named collections of instances read from the user's data
directory (``--data-dir`` or ``VERIPLAN_DATA``), never from the package.

A registry (:data:`DATASETS`) maps names to factories ``root -> Dataset``;
method issues add their own datasets with :func:`register_dataset`, other
packages through the ``veriplan.datasets`` entry-point group.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

import yaml

from veriplan.core.problems import Dataset, ProblemKind, wrong_kind
from veriplan.errors import ConfigError, DataError
from veriplan.methods.result import SolveResult
from veriplan.pddl.parser import read_domain, read_problem
from veriplan.pddl.task import Task
from veriplan.planio import PlanBenchConfig
from veriplan.registry import Registry


def data_dir(given: str | Path | None = None) -> Path:
    raw = given or os.environ.get("VERIPLAN_DATA")
    if not raw:
        raise DataError("no data directory: pass --data-dir or set VERIPLAN_DATA "
                        "(the folder holding planbench/ and autotos/)")
    path = Path(raw).expanduser()
    if not path.is_dir():
        raise DataError(f"data directory {path} does not exist")
    return path


@lru_cache(maxsize=32)
def _domain(path: str):
    return read_domain(path)


@lru_cache(maxsize=32)
def _config(path: str) -> PlanBenchConfig:
    return PlanBenchConfig.from_yaml(path)


@dataclass(frozen=True)
class Instance:
    """One PDDL problem of a dataset; ``previous`` is the instance shown as the
    one-shot example (PlanBench uses the preceding instance)."""

    id: str
    dataset: str
    domain_path: Path
    problem_path: Path
    config_path: Path | None = None
    previous: Path | None = field(default=None, compare=False)

    def task(self) -> Task:
        d = _domain(str(self.domain_path))
        return Task(d, read_problem(self.problem_path, d))

    def planbench_config(self) -> PlanBenchConfig | None:
        return _config(str(self.config_path)) if self.config_path else None

    def problem(self, kind: ProblemKind | str = ProblemKind.PDDL):
        """What a method of problem kind ``kind`` plans for (the one place the
        harness turns an instance into a method's input)."""
        from veriplan.methods.result import PlanningProblem

        if kind != ProblemKind.PDDL:
            raise DataError(wrong_kind(self.dataset, ProblemKind.PDDL, kind))
        return PlanningProblem(self.task(), self.planbench_config, self.example,
                               name=f"{self.dataset}/{self.id}")

    def example(self) -> tuple[Task, list] | None:
        """The one-shot example: the previous instance with an optimal plan."""
        if self.previous is None:
            return None
        from veriplan.search import Budget, bfs

        d = _domain(str(self.domain_path))
        ex = Task(d, read_problem(self.previous, d))
        r = bfs(ex, budget=Budget(max_seconds=30))
        if r.plan is None:
            return None
        return ex, list(r.plan)


@dataclass(frozen=True)
class ObfuscatedInstance(Instance):
    """An instance renamed with a seeded random vocabulary (actions, predicates,
    objects): no PlanBench config applies, so prompts are PDDL."""

    seed: int = 0

    def task(self) -> Task:
        from veriplan.pddl.obfuscation import obfuscate

        renamed, _ = obfuscate(super().task(), seed=self.seed)
        return renamed

    def on_user_task(self, result: SolveResult) -> SolveResult:
        """``result`` (planned in the renamed vocabulary) on the dataset's own
        files: the plan renamed back and validated on the original task; that
        plan is what is stored, verified only if the validator accepted it
        there. The renamed plan stays in ``metrics["renamed_plan"]``."""
        from veriplan.core.plan import Step
        from veriplan.pddl.obfuscation import obfuscate
        from veriplan.verify import validate_plan

        if not result.plan:
            return result
        original = super().task()
        _, renaming = obfuscate(original, seed=self.seed)
        back = renaming.inverse()
        plan = [str(back.step(Step.parse(s))) for s in result.plan]
        verdict = validate_plan(original, plan)
        metrics = {**result.metrics, "renamed_plan": list(result.plan)}
        if result.verified and not verdict.valid:  # never expected: renaming is a bijection
            return replace(result, plan=plan, verified=False, solved_by=None, metrics=metrics,
                           last_diagnosis=f"not valid on the dataset's own files: "
                                          f"{verdict.feedback()}")
        return replace(result, plan=plan, metrics=metrics)

    def planbench_config(self) -> PlanBenchConfig | None:
        return None

    def example(self) -> tuple[Task, list] | None:
        return None


def obfuscated(base: Dataset, seed: int, name: str) -> Dataset:
    """``base`` under a fresh random renaming of each instance (seeded)."""
    insts = tuple(ObfuscatedInstance(i.id, name, i.domain_path, i.problem_path, None, None,
                                     seed) for i in base.instances)
    return Dataset(name, insts, f"{base.version}-obf{seed}")


def _number(p: Path) -> tuple[int, str]:
    m = re.search(r"(\d+)", p.stem)
    return (int(m.group(1)) if m else -1, p.name)


def pddl_dataset(name: str, root: Path, domain: str, problems: str,
                 config: str | None) -> Dataset:
    """Every ``*.pddl`` problem in ``problems`` (numeric order), each with the
    preceding file as its one-shot example."""
    dom = root / domain
    pdir = root / problems
    if not dom.is_file() or not pdir.is_dir():
        raise DataError(f"dataset {name}: expected {dom} and {pdir}; is --data-dir the folder "
                        "holding planbench/?")
    files = sorted(pdir.glob("*.pddl"), key=_number)
    cfg = root / config if config else None
    pairs = [(f, files[i - 1] if i > 0 else None) for i, f in enumerate(files)]
    return _dataset(name, dom, pairs, cfg)


def _dataset(name: str, dom: Path, pairs: list[tuple[Path, Path | None]],
             cfg: Path | None, ids: list[str] | None = None, *,
             prompts: bool = True) -> Dataset:
    """``prompts=False``: ``cfg`` holds bounds only (no words for prompts), so the
    instances carry no PlanBench config and methods prompt in PDDL."""
    digest = hashlib.sha256()
    for f in [dom, *(f for f, _ in pairs), *([cfg] if cfg else [])]:
        digest.update(f.name.encode())
        digest.update(f.read_bytes())
    words = cfg if prompts else None
    instances = tuple(Instance(ids[k] if ids else f.stem, name, dom, f, words, prev)
                      for k, (f, prev) in enumerate(pairs))
    return Dataset(name, instances, digest.hexdigest()[:16])


def planbench_dataset(name: str, root: Path, domain: str, problems: str, config: str,
                      shots: int = 1) -> Dataset:
    """The instances PlanBench's plan-generation scripts query for ``config``:
    with ``shots`` examples per prompt they take each ``start <= i <= end`` as
    the first example and query instance ``i + shots``, so the queried ids are
    ``start + shots .. end + shots`` (Blocksworld: ``start: 1, end: 500`` gives
    instance-2 .. instance-501, the ids of PlanBench's recorded responses).
    Each instance's example is the instance before it (none in a zero-shot set).
    A config without action templates (Blocksworld-hard's gives bounds only)
    words no prompt: its instances carry no PlanBench config."""
    dom, pdir, cfg = root / domain, root / problems, root / config
    if not dom.is_file() or not pdir.is_dir() or not cfg.is_file():
        raise DataError(f"dataset {name}: expected {dom}, {pdir} and {cfg}; is --data-dir the "
                        "folder holding planbench/?")
    spec = yaml.safe_load(cfg.read_text(encoding="utf-8")) or {}
    try:
        start, end = int(spec["start"]), int(spec["end"])
        template = str(spec.get("instances_template", "instance-{}.pddl"))
    except (KeyError, TypeError, ValueError):
        raise DataError(f"dataset {name}: {cfg} has no integer start and end") from None
    pairs = []
    for i in range(start + shots, end + shots + 1):
        f = pdir / template.format(i)
        if not f.is_file():
            raise DataError(f"dataset {name}: {cfg} bounds ({start}..{end}, {shots}-shot) "
                            f"name {f.name}, which {pdir} lacks")
        prev = pdir / template.format(i - 1)
        pairs.append((f, prev if shots and prev.is_file() else None))
    return _dataset(name, dom, pairs, cfg, prompts=isinstance(spec.get("actions"), dict))


_PB = "planbench"
# name: (domain, problem folder, config, examples per prompt). PlanBench's sets are
# queried one-shot; Blocksworld-hard is a zero-shot set whose bounds are its 110
# problems (the DRIP paper evaluates all 110).
_PLANBENCH: dict[str, tuple[str, str, str, int]] = {
    "blocksworld": ("instances/blocksworld/generated_domain.pddl",
                    "instances/blocksworld/generated_basic", "configs/blocksworld.yaml", 1),
    "blocksworld_3": ("instances/blocksworld/generated_domain.pddl",
                      "instances/blocksworld/generated_basic_3", "configs/blocksworld_3.yaml", 1),
    "mystery_blocksworld": ("instances/blocksworld/mystery/generated_domain.pddl",
                            "instances/blocksworld/mystery/generated_basic",
                            "configs/mystery_blocksworld.yaml", 1),
    "mystery_blocksworld_3": ("instances/blocksworld/mystery/generated_domain.pddl",
                              "instances/blocksworld/mystery/generated_basic_3",
                              "configs/mystery_blocksworld_3.yaml", 1),
    "blocksworld_hard": ("instances/blocksworld_hard/generated_domain.pddl",
                         "instances/blocksworld_hard/generated", "configs/blocksworld_hard.yaml",
                         0),
    "logistics": ("instances/logistics/generated_domain.pddl",
                  "instances/logistics/generated_basic", "configs/logistics.yaml", 1),
}


def union(name: str, parts: list[Dataset]) -> Dataset:
    """Several datasets as one; instance ids become ``part/id``."""
    insts = tuple(replace(i, id=f"{d.name}/{i.id}", dataset=name)
                  for d in parts for i in d.instances)
    digest = hashlib.sha256("+".join(d.version for d in parts).encode())
    return Dataset(name, insts, digest.hexdigest()[:16])


class UnknownDatasetError(ConfigError, DataError):
    """A dataset name that is not registered (names the choices)."""


Factory = Callable[[Path], Dataset]


def _planbench(name: str, spec: tuple[str, str, str, int]) -> Factory:
    return lambda root: planbench_dataset(name, root / _PB, *spec)


DATASETS: Registry[Factory] = Registry(
    "dataset", {name: _planbench(name, spec) for name, spec in _PLANBENCH.items()},
    group="veriplan.datasets", error=UnknownDatasetError)


def _obfuscated(base: str) -> Factory:
    return lambda root: obfuscated(DATASETS.get(base)(root), 0, f"{base}_obfuscated")


for _base in ("blocksworld", "blocksworld_3"):
    DATASETS.register(f"{_base}_obfuscated", _obfuscated(_base))

# The closed-loop paper's evaluation set (Du et al. 2026, section 4.1 and Table 1): 600
# Mystery Blocksworld instances, as the authors' released runs hold them: instance-1 ..
# instance-500 of PlanBench's Mystery problems ("gb500") and instance-1 .. instance-100
# of its three-block ones ("gb3_100"). Their batch runner takes the files 0..501 (and
# 0..101) and drops the first and the last, so these are not PlanBench's one-shot
# bounds (instance-2 .. instance-501): the two sets share 499 + 99 problems.
CLOSED_LOOP_PARTS = (("mystery_blocksworld", 500), ("mystery_blocksworld_3", 100))


def closed_loop_selection(root: Path, name: str = "mystery_blocksworld_600") -> Dataset:
    """The closed-loop authors' 600 problems: instance-1 .. instance-N of each part
    (each with the instance before it as its example, where that file exists)."""
    parts = []
    for base, n in CLOSED_LOOP_PARTS:
        domain, problems, config, _shots = _PLANBENCH[base]
        dom, pdir, cfg = root / _PB / domain, root / _PB / problems, root / _PB / config
        pairs = []
        for k in range(1, n + 1):
            f = pdir / f"instance-{k}.pddl"
            if not f.is_file():
                raise DataError(f"dataset {name}: the authors' selection names {f.name}, "
                                f"which {pdir} lacks; is --data-dir the folder holding "
                                "planbench/?")
            prev = pdir / f"instance-{k - 1}.pddl"
            pairs.append((f, prev if prev.is_file() else None))
        parts.append(_dataset(base, dom, pairs, cfg))
    return union(name, parts)


DATASETS.register("mystery_blocksworld_600", closed_loop_selection)


def smallest(base: Dataset, n: int, name: str) -> Dataset:
    """The ``n`` instances of ``base`` with the fewest objects (ties: dataset
    order)."""
    def size(inst: Instance) -> int:
        return len(read_problem(inst.problem_path, _domain(str(inst.domain_path))).objects)

    ranked = sorted(range(len(base.instances)), key=lambda i: (size(base.instances[i]), i))
    keep = sorted(ranked[:n])
    insts = tuple(replace(base.instances[i], dataset=name) for i in keep)
    return Dataset(name, insts, f"{base.version}-smallest{n}")


# The DRIP issue's small-scale run: the 20 Blocksworld-hard problems with fewest blocks.
DATASETS.register(
    "blocksworld_hard_smallest20",
    lambda root: smallest(DATASETS.get("blocksworld_hard")(root), 20,
                          "blocksworld_hard_smallest20"))


@dataclass(frozen=True)
class DomainRun:
    """An AutoToS "instance": one whole run on a search domain (the loop writes
    the domain's code once; evaluation covers all its problems)."""

    id: str
    dataset: str
    domain: str
    root: Path

    def problem(self, kind: ProblemKind | str = ProblemKind.AUTOTOS):
        from veriplan.methods.autotos.problem import AutoToSProblem

        if kind != ProblemKind.AUTOTOS:
            raise DataError(wrong_kind(self.dataset, ProblemKind.AUTOTOS, kind))
        return AutoToSProblem(self.domain, self.root)


def autotos_dataset(domain: str, root: Path) -> Dataset:
    from veriplan.domains.autotos import get_domain

    get_domain(domain)
    folder = root / "autotos"
    if not folder.is_dir():
        raise DataError(f"no autotos/ folder in {root}: is --data-dir the folder holding it?")
    digest = hashlib.sha256(domain.encode())
    for f in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(str(f.relative_to(folder)).encode())
        digest.update(f.read_bytes())
    name = f"autotos_{domain}"
    return Dataset(name, (DomainRun(domain, name, domain, root),),
                   digest.hexdigest()[:16])


def _autotos_datasets() -> None:
    from veriplan.domains.autotos import DOMAINS

    for domain in DOMAINS:
        DATASETS.register(f"autotos_{domain}", lambda root, d=domain: autotos_dataset(d, root))


_autotos_datasets()

# SQ-BCP's hidden-precondition families (problem kind "hidden"): hidden-fact PDDL over
# PlanBench's Blocksworld and Logistics under the data directory; recipes and how-to
# projects from the package's own files (they ignore the data directory). A user's
# RecipeNLG or WikiHow file: veriplan.domains.hidden.datasets.recipes_dataset(path) /
# howto_dataset(path).
for _name in ("sqbcp_pddl_hidden", "sqbcp_recipes", "sqbcp_howto"):
    DATASETS.register(_name, f"veriplan.domains.hidden.datasets:{_name}")

# Episodes of the interactive environments (problem kind "env", need no data directory):
# household_eval (134 games), household_train / household_valid (the training games,
# 5 per type held out for validation), scienceworld_seen / scienceworld_unseen (dev /
# test variations), scienceworld_train / scienceworld_valid. See veriplan.envs.datasets.
for _name in ("household_eval", "household_train", "household_valid", "scienceworld_seen",
              "scienceworld_unseen", "scienceworld_train", "scienceworld_valid",
              "scienceworld_unseen_short"):
    DATASETS.register(_name, f"veriplan.envs.datasets:{_name}")


def register_dataset(name: str, factory: Factory | str) -> None:
    """Add a dataset at run time: a factory ``root -> Dataset`` (or its
    ``"module:function"`` path)."""
    DATASETS.register(name, factory)


@lru_cache(maxsize=64)
def _load(factory: Factory, root: str) -> Dataset:
    return factory(Path(root))


def load_dataset(name: str, root: str | Path | None = None) -> Dataset:
    """The dataset ``name`` read from the data directory (cached per factory
    and directory: a name registered again is read again). Datasets that live
    in the package (recipes, how-to) need no data directory; the others say
    so when it is missing."""
    factory = DATASETS.get(name)
    try:
        where = str(data_dir(root))
    except DataError as missing:
        try:
            return _load(factory, "")
        except DataError:
            raise missing from None
    return _load(factory, where)
