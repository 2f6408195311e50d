"""The environments' episodes as benchmark datasets (problem kind ``env``):
each instance's ``problem("env")`` is an :class:`~veriplan.envs.EnvTask`, and a
method makes its own environment from it (one simulator process per episode).

- ``household_eval``: the 134 evaluation games (ALFWorld's unseen-split shape);
- ``household_train``: the training games (20 per task type) minus the
  validation ones, for calibration (AEC's appendix B.2);
- ``household_valid``: 5 training games per task type (30), drawn once with
  ``random.Random("household_valid")``: the validation split for choosing tau;
  disjoint from ``household_train`` by construction;
- ``scienceworld_seen`` / ``scienceworld_unseen``: ScienceWorld 1.2.3's dev / test
  variations of its 30 tasks (1796 / 1819);
- ``scienceworld_train`` / ``scienceworld_valid``: its train variations, minus /
  only 2 per task drawn with ``random.Random("scienceworld_valid")`` (60).

Instances run round-robin over task types (household) or tasks (ScienceWorld),
so the first N of a dataset (``--limit N``) spread over all of them: the first
30 household eval games are 5 of each type, the first 30 ScienceWorld
variations one of each task. Listing generates no game and starts no Java:
household ids are counts, ScienceWorld's splits a table of its variations.
Each instance's ``task_type`` is the ALFWorld task type (household) or the
ScienceWorld task name; ``version`` changes when the set changes (household:
the game generation version; ScienceWorld: the package version).
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from itertools import zip_longest
from pathlib import Path
from typing import Any

from veriplan.core.problems import Dataset, ProblemKind, wrong_kind
from veriplan.envs.base import EnvTask

VALID_PER_TYPE = 5  # household_valid: training games per task type
VALID_PER_TASK = 2  # scienceworld_valid: train variations per task
SCIENCEWORLD_VERSION = "1.2.3"


@dataclass(frozen=True)
class EnvInstance:
    """One episode of an environment: ``id`` is the task id the environment
    resets to (``eval/pick_and_place/0``, ``boil:21``)."""

    id: str
    dataset: str
    env: str
    split: str
    task_type: str
    options: tuple[tuple[str, Any], ...] = ()

    @property
    def task_id(self) -> str:
        return self.id

    def problem(self, kind: ProblemKind | str = ProblemKind.ENV) -> EnvTask:
        """What a method of problem kind ``kind`` runs on: an EnvTask for "env"."""
        if kind != ProblemKind.ENV:
            from veriplan.errors import DataError

            raise DataError(wrong_kind(self.dataset, ProblemKind.ENV, kind))
        return EnvTask(self.env, self.id, self.split, self.task_type, self.options)


def _round_robin(groups: list[list[str]]) -> list[str]:
    return [x for row in zip_longest(*groups) for x in row if x is not None]


def _dataset(name: str, env: str, split: str, ids: list[str], kind_of, tag: str):
    insts = tuple(EnvInstance(i, name, env, split, kind_of(i)) for i in ids)
    digest = hashlib.sha256("\n".join([tag, *ids]).encode()).hexdigest()[:12]
    return Dataset(name, insts, f"{tag}-{digest}")


# ----- household ---------------------------------------------------------------------------

def household_valid_ids() -> list[str]:
    """The validation games: VALID_PER_TYPE training games of each type (seeded)."""
    from veriplan.envs.household.games import counts

    out = []
    for task_type, n in counts("train").items():
        rng = random.Random(f"household_valid:{task_type}")
        out += [f"train/{task_type}/{i}" for i in sorted(rng.sample(range(n), VALID_PER_TYPE))]
    return out


def _household(name: str, split: str):
    from veriplan.envs.household.games import VERSION, counts

    valid = set(household_valid_ids())
    source = "train" if split in ("train", "valid") else split
    groups = []
    for task_type, n in counts(source).items():
        ids = [f"{source}/{task_type}/{i}" for i in range(n)]
        if split == "train":
            ids = [i for i in ids if i not in valid]
        elif split == "valid":
            ids = [i for i in ids if i in valid]
        groups.append(ids)
    return _dataset(name, "household", split, _round_robin(groups),
                    lambda i: i.split("/")[1], f"household-{VERSION}")


def household_eval(root: Path | None = None):
    return _household("household_eval", "eval")


def household_train(root: Path | None = None):
    return _household("household_train", "train")


def household_valid(root: Path | None = None):
    return _household("household_valid", "valid")


# ----- ScienceWorld ------------------------------------------------------------------------

def scienceworld_valid_ids() -> list[str]:
    """VALID_PER_TASK train variations of each task (seeded)."""
    from veriplan.envs.scienceworld import VARIATIONS, variations

    out = []
    for task in VARIATIONS:
        rng = random.Random(f"scienceworld_valid:{task}")
        train = list(variations(task, "train"))
        out += [f"{task}:{v}" for v in sorted(rng.sample(train, VALID_PER_TASK))]
    return out


def _scienceworld(name: str, split: str):
    from veriplan.envs.scienceworld import VARIATIONS, variations

    valid = set(scienceworld_valid_ids())
    source = "train" if split == "valid" else split
    groups = []
    for task in VARIATIONS:
        ids = [f"{task}:{v}" for v in variations(task, source)]
        if split == "train":
            ids = [i for i in ids if i not in valid]
        elif split == "valid":
            ids = [i for i in ids if i in valid]
        groups.append(ids)
    return _dataset(name, "scienceworld", split, _round_robin(groups),
                    lambda i: i.rpartition(":")[0], f"scienceworld-{SCIENCEWORLD_VERSION}")


def scienceworld_seen(root: Path | None = None):
    return _scienceworld("scienceworld_seen", "seen")


def scienceworld_unseen(root: Path | None = None):
    return _scienceworld("scienceworld_unseen", "unseen")


def scienceworld_train(root: Path | None = None):
    return _scienceworld("scienceworld_train", "train")


def scienceworld_valid(root: Path | None = None):
    return _scienceworld("scienceworld_valid", "valid")


# Issue 33's controlled-model study on ScienceWorld (src/veriplan/methods/aec/sweeps/
# aec_controlled_scienceworld.toml): 16 unseen variations chosen by gold-path length, from
# the first four unseen variations of the 22 tasks whose loads are quick: at most 20 gold
# steps as one engine loaded them (a fresh engine may draw another world), at least two
# door openings, a focus step and no numbered answer; 9 whose task text names what to
# focus on (AEC's V can refute a wrong focus) and 7 whose text does not, at most two per
# task (one per find task).
UNSEEN_SHORT = ("chemistry-mix:25", "chemistry-mix-paint-secondary-color:28",
                "chemistry-mix-paint-secondary-color:29", "power-component:16",
                "power-component:17", "power-component-renewable-vs-nonrenewable-energy:17",
                "test-conductivity-of-unknown-substances:450",
                "test-conductivity-of-unknown-substances:452", "use-thermometer:405",
                "find-animal:225", "find-living-thing:226", "find-non-living-thing:226",
                "find-plant:225", "identify-life-stages-2:7", "lifespan-longest-lived:96",
                "lifespan-shortest-lived:96")


def scienceworld_unseen_short(root: Path | None = None):
    return _dataset("scienceworld_unseen_short", "scienceworld", "unseen", list(UNSEEN_SHORT),
                    lambda i: i.rpartition(":")[0], f"scienceworld-{SCIENCEWORLD_VERSION}")


NAMES = ("household_eval", "household_train", "household_valid", "scienceworld_seen",
         "scienceworld_unseen", "scienceworld_train", "scienceworld_valid",
         "scienceworld_unseen_short")
