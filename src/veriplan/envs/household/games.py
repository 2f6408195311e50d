"""The fixed game sets: an evaluation set of 134 games shaped like ALFWorld's
unseen split (24 pick and place, 31 clean, 23 heat, 21 cool, 18 examine in
light, 17 pick two) and a training set, generated deterministically from
seeds and cached on disk (``VERIPLAN_CACHE`` or ~/.cache/veriplan)."""

from __future__ import annotations

from pathlib import Path

from veriplan.envs.base import UnknownTaskError
from veriplan.envs.household.generator import EVAL_COUNTS, TASK_TYPES, Game, generate
from veriplan.errors import ConfigError
from veriplan.storage import cache_dir

VERSION = "v1"  # bump when generation changes: a new folder, never mixed sets
TRAIN_PER_TYPE = 20
# Seeds of the two sets never overlap: eval draws from 0.., train from 100000..
_SEED_BASE = {"eval": 0, "train": 100_000}
LIST_HINT = ("List the valid ids with veriplan.envs.household.games.game_ids('eval') (or "
             "'train'), or the instances of the household_eval / household_train datasets.")


def cache_root() -> Path:
    return cache_dir() / "household" / VERSION


def counts(split: str) -> dict[str, int]:
    if split == "eval":
        return dict(EVAL_COUNTS)
    if split == "train":
        return {t: TRAIN_PER_TYPE for t in TASK_TYPES}
    raise ConfigError(f"unknown household split {split!r}: use eval or train")


def game_ids(split: str) -> list[str]:
    return [f"{split}/{t}/{i}" for t, n in counts(split).items() for i in range(n)]


def load_game(game_id: str, root: Path | None = None) -> Game:
    """A game by id ("eval/pick_heat_then_place/3") or by file path; generated
    and cached on first use."""
    path = Path(game_id)
    if path.suffix == ".json" and path.is_file():
        return Game.from_json(path.read_text())
    parts = game_id.split("/")
    if len(parts) != 3 or parts[0] not in _SEED_BASE or parts[1] not in TASK_TYPES \
            or not parts[2].isdigit():
        raise UnknownTaskError(
            f"unknown game {game_id!r}: use SPLIT/TASK_TYPE/N (e.g. eval/pick_and_place/0) "
            f"with SPLIT eval or train, or a game file; task types: {', '.join(TASK_TYPES)}. "
            f"{LIST_HINT}")
    split, task_type, n = parts[0], parts[1], int(parts[2])
    if n >= counts(split)[task_type]:
        raise UnknownTaskError(
            f"unknown game {game_id!r}: the {split} set has {counts(split)[task_type]} "
            f"{task_type} games (0..{counts(split)[task_type] - 1}). {LIST_HINT}")
    folder = (root or cache_root()) / split / task_type
    file = folder / f"{n}.json"
    if not file.is_file():
        _fill(split, task_type, n, folder)
    return Game.from_json(file.read_text())


def _fill(split: str, task_type: str, n: int, folder: Path) -> None:
    """Generate games 0..n of a type into ``folder``: seeds are tried in order,
    and a seed whose game cannot be made or solved is skipped (the same ones
    every time). Cached games are kept; the walk resumes after the last one."""
    folder.mkdir(parents=True, exist_ok=True)
    found, seed = -1, _SEED_BASE[split] + 1000 * TASK_TYPES.index(task_type)
    while (folder / f"{found + 1}.json").is_file():
        found += 1
        seed = Game.from_json((folder / f"{found}.json").read_text()).seed + 1
    while found < n:
        game = generate(task_type, seed, f"{split}/{task_type}/{found + 1}")
        seed += 1
        if game is None:
            continue
        found += 1
        tmp = folder / f"{found}.tmp"
        tmp.write_text(game.to_json())
        tmp.replace(folder / f"{found}.json")
