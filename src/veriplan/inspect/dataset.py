"""veriplan datasets as inspect samples: one sample per instance, its input
the prompt veriplan's ``direct`` method sends (PlanBench's plan-generation
prompt, one-shot with the preceding instance, or the task in PDDL), its
metadata where the instance's files are, so the solver and the scorer (and
``inspect score`` on a log later) rebuild the instance from the sample alone."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from inspect_ai.dataset import MemoryDataset, Sample

from veriplan.bench.datasets import Instance, ObfuscatedInstance, data_dir, load_dataset
from veriplan.errors import ConfigError, DataError
from veriplan.methods.backprompt.method import first_prompt

PROMPTS = ("planbench", "pddl")


def instance_metadata(instance: Instance) -> dict[str, str | int | None]:
    """What locates ``instance`` (plain JSON, kept in the sample's metadata)."""
    md: dict[str, str | int | None] = {
        "dataset": instance.dataset, "instance": instance.id,
        "domain": str(instance.domain_path), "problem": str(instance.problem_path),
        "planbench_config": str(instance.config_path) if instance.config_path else None,
        "example_problem": str(instance.previous) if instance.previous else None,
    }
    if isinstance(instance, ObfuscatedInstance):
        md["obfuscation_seed"] = instance.seed
    return md


def instance_from_metadata(md: Mapping[str, object]) -> Instance:
    """The instance a sample was made from (see :func:`instance_metadata`): ``md``
    is the sample's metadata as inspect holds it, read with checks."""
    try:
        args = (str(md["instance"]), str(md["dataset"]), Path(md["domain"]),
                Path(md["problem"]),
                Path(md["planbench_config"]) if md.get("planbench_config") else None,
                Path(md["example_problem"]) if md.get("example_problem") else None)
    except KeyError as exc:
        raise DataError(f"this sample was not made by veriplan.inspect: its metadata lacks "
                        f"{exc.args[0]!r} (expected dataset, instance, domain, problem)") from None
    if "obfuscation_seed" in md:
        return ObfuscatedInstance(*args, seed=int(md["obfuscation_seed"]))
    return Instance(*args)


def resolve_data_dir(given: str | Path | None) -> Path:
    """``given``, else ``VERIPLAN_DATA``; a missing one says how to pass it to inspect."""
    try:
        return data_dir(given)
    except DataError as exc:
        raise DataError(f"{exc} (to inspect: -T data_dir=PATH, or export VERIPLAN_DATA)") \
            from None


def prompt_for(instance: Instance, prompt: str = "planbench", one_shot: bool = True) -> str:
    """The first prompt veriplan's ``direct`` method sends for ``instance``."""
    if prompt not in PROMPTS:
        raise ConfigError(f"prompt {prompt!r}: use one of {', '.join(PROMPTS)}")
    problem = instance.problem()
    planbench = problem.planbench_config() if prompt == "planbench" else None
    example = problem.one_shot_example() if one_shot and planbench is not None else None
    try:
        return first_prompt(problem.task, planbench, example)
    except ConfigError as exc:
        raise ConfigError(f"dataset {instance.dataset}, {instance.id}: veriplan cannot render "
                          f"its PlanBench prompt ({exc}); use the PDDL prompt instead "
                          "(-T prompt=pddl)") from None


def instance_sample(instance: Instance, prompt: str = "planbench",
                    one_shot: bool = True) -> Sample:
    return Sample(input=prompt_for(instance, prompt, one_shot), id=instance.id,
                  metadata=instance_metadata(instance))


def planbench_dataset(name: str, root: str | Path | None = None, *, prompt: str = "planbench",
                      one_shot: bool = True, limit: int | None = None) -> MemoryDataset:
    """The veriplan dataset ``name`` (any PDDL dataset of
    :data:`veriplan.bench.datasets.DATASETS`) as inspect samples; ``limit``
    keeps the first instances (before any prompt is rendered)."""
    ds = load_dataset(name, resolve_data_dir(root))
    instances = ds.take(limit)
    if instances and not isinstance(instances[0], Instance):
        raise ConfigError(f"dataset {name} does not hold PDDL problems; the inspect tasks run "
                          "on PDDL datasets (blocksworld, mystery_blocksworld, logistics, "
                          "blocksworld_hard, ...)")
    return MemoryDataset([instance_sample(i, prompt, one_shot) for i in instances],
                         name=name, location=str(instances[0].problem_path.parent)
                         if instances else None)
