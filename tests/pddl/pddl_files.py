"""Every PDDL domain in the shared data with its problems."""

from __future__ import annotations

from pathlib import Path


def domain_problem_sets(data_dir: Path) -> list[tuple[Path, list[Path]]]:
    pb = data_dir / "planbench" / "instances"
    at = data_dir / "autotos"
    sets = [
        (pb / "blocksworld" / "generated_domain.pddl",
         ["blocksworld/generated_basic", "blocksworld/generated_basic_3"]),
        (pb / "blocksworld" / "mystery" / "generated_domain.pddl",
         ["blocksworld/mystery/generated_basic", "blocksworld/mystery/generated_basic_3"]),
        (pb / "blocksworld_hard" / "generated_domain.pddl", ["blocksworld_hard/generated"]),
        (pb / "logistics" / "generated_domain.pddl", ["logistics/generated_basic"]),
    ]
    out = [(d, sorted(p for sub in subs for p in (pb / sub).glob("*.pddl"))) for d, subs in sets]
    out.append((at / "blocksworld" / "domain.pddl",
                sorted((at / "blocksworld" / "blocks_instances").glob("*.pddl"))))
    out.append((at / "sokoban" / "domain.pddl",
                sorted([*(at / "sokoban" / "test_instances").glob("*.pddl"),
                        *(at / "sokoban" / "unittests_instances").glob("*.pddl")])))
    return out


def all_pddl_files(data_dir: Path) -> set[Path]:
    """Every PDDL file but the IPC's (ipc-dev: tests/verify/test_ipc_reading.py walks
    those, with VAL's parser as the oracle)."""
    ipc = data_dir / "ipc-dev"
    return {p for p in data_dir.rglob("*.pddl") if ipc not in p.parents}
