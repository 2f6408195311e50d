"""The problems differential fuzzing runs on (veriplan.verify.fuzz): a seeded
sample of every bundled domain, the benchmark sets', the examples, Blocksworld with
tower moves and the household games'. The harness's to gather: the verifier's
fuzzing engine imports no environment and no dataset."""

from __future__ import annotations

import random
import warnings
from pathlib import Path

from veriplan.errors import PDDLLenientWarning
from veriplan.verify.fuzz import FuzzProblem
from veriplan.verify.val import val_readable_domain

PLANBENCH_FAMILIES = {
    # family: (domain file, problems folder), under planbench/instances
    "blocksworld": ("blocksworld/generated_domain.pddl", "blocksworld/generated_basic"),
    "mystery": ("blocksworld/mystery/generated_domain.pddl",
                "blocksworld/mystery/generated_basic"),
    "blocksworld-hard": ("blocksworld_hard/generated_domain.pddl",
                         "blocksworld_hard/generated"),
    "logistics": ("logistics/generated_domain.pddl", "logistics/generated_basic"),
}


def bundled_problems(data_dir: Path | None, workdir: Path, *, per_family: int,
                     seed: int = 0, skipped: dict[str, str] | None = None,
                     household_max_objects: int | None = 100) -> list[FuzzProblem]:
    """A seeded sample of ``per_family`` problems of every bundled domain: PlanBench's
    Blocksworld, Mystery, Blocksworld-hard and Logistics and AutoToS's Sokoban (from
    ``data_dir``, when given), the examples, Blocksworld with tower moves, and the
    household games' domain (alfred.pddl, read leniently, with the copy VAL can
    read written into ``workdir``). A family that cannot be had here is left out and
    named in ``skipped`` with the reason.

    Household games with more than ``household_max_objects`` objects (the kitchens,
    where heating and cooling happen) are passed over: grounding one takes veriplan
    15-25 s (None: take every game)."""
    skipped = skipped if skipped is not None else {}
    rng = random.Random(seed)
    out: list[FuzzProblem] = []

    def sample(paths: list[Path]) -> list[Path]:
        paths = sorted(paths)
        return sorted(rng.sample(paths, min(per_family, len(paths))))

    if data_dir is None:
        for fam in (*PLANBENCH_FAMILIES, "sokoban"):
            skipped[fam] = "no benchmark data directory"
    else:
        inst = data_dir / "planbench" / "instances"
        for fam, (dom, probs) in PLANBENCH_FAMILIES.items():
            files = list((inst / probs).glob("*.pddl"))
            if not (inst / dom).is_file() or not files:
                skipped[fam] = f"not found under {inst}"
                continue
            out += [FuzzProblem(fam, p.stem, inst / dom, p, inst / dom) for p in sample(files)]
        sok = data_dir / "autotos" / "sokoban"
        files = list((sok / "test_instances").glob("*.pddl"))
        if files:
            out += [FuzzProblem("sokoban", p.stem, sok / "domain.pddl", p, sok / "domain.pddl")
                    for p in sample(files)]
        else:
            skipped["sokoban"] = f"not found under {sok}"
    examples = Path(__file__).resolve().parents[1] / "examples"
    out.append(FuzzProblem("examples", "blocks-problem", examples / "blocks-domain.pddl",
                           examples / "blocks-problem.pddl", examples / "blocks-domain.pddl"))
    out += _towers(examples, workdir, per_family, rng)
    out += _household(workdir, per_family, seed, skipped, household_max_objects)
    return out


def _towers(examples: Path, workdir: Path, n: int, rng: random.Random) -> list[FuzzProblem]:
    """Blocksworld with tower moves (ADL: forall, when, equality) on random towers."""
    from importlib import resources

    dom = workdir / "towers-domain.pddl"
    dom.write_text(resources.files("veriplan.domains").joinpath(
        "blocksworld_towers.pddl").read_text())
    out = []
    for k in range(n):
        blocks = [f"b{i}" for i in range(rng.randint(3, 5))]
        rng.shuffle(blocks)
        init, tops, above = [], [], []
        i = 0
        while i < len(blocks):  # consecutive runs of blocks form towers
            size = rng.randint(1, len(blocks) - i)
            tower = blocks[i:i + size]
            init.append(f"(ontable {tower[0]})")
            for lo, hi in zip(tower, tower[1:]):
                init.append(f"(on {hi} {lo})")
            above += [f"(above {hi} {lo})" for x, lo in enumerate(tower)
                      for hi in tower[x + 1:]]
            tops.append(f"(clear {tower[-1]})")
            i += size
        goal = f"(on {blocks[0]} {blocks[-1]})" if blocks[0] != blocks[-1] else "(and)"
        prob = workdir / f"towers-{k}.pddl"
        prob.write_text(f"(define (problem towers-{k}) (:domain blocksworld-towers)\n"
                        f"(:objects {' '.join(sorted(blocks))})\n"
                        f"(:init {' '.join(init + tops + above)})\n(:goal {goal}))\n")
        out.append(FuzzProblem("towers", f"towers-{k}", dom, prob, dom))
    return out


def _household(workdir: Path, n: int, seed: int, skipped: dict[str, str],
               max_objects: int | None = None) -> list[FuzzProblem]:
    try:
        from veriplan.envs.household.generator import TASK_TYPES, game_domain, generate

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PDDLLenientWarning)
            text = game_domain()
    except (ImportError, OSError, ModuleNotFoundError) as exc:
        skipped["household"] = f"the alfworld wheel is not installed ({exc})"
        return []
    dom = workdir / "household-domain.pddl"
    dom.write_text(text)
    val_dom = workdir / "household-domain-val.pddl"
    val_dom.write_text(val_readable_domain(text))
    out = []
    k = 0
    while len(out) < n and k < 10 * n + 10:
        tt = TASK_TYPES[k % len(TASK_TYPES)]
        game = generate(tt, seed * 1000 + k, f"hh-{k}", solve=False)
        k += 1
        if game is None or (max_objects is not None
                            and game.problem.count(" - ") > max_objects):
            continue
        prob = workdir / f"household-{k}.pddl"
        prob.write_text(game.problem)
        out.append(FuzzProblem("household", f"{tt}-{k}", dom, prob, val_dom, strict=False))
    return out


