"""PlanBench as inspect tasks, registered as ``veriplan/<name>``:

``planbench_blocksworld``, ``planbench_mystery``, ``planbench_logistics``,
``planbench_blocksworld_hard``, and ``planbench`` (``-T dataset=NAME``: any
PDDL dataset of veriplan's registry, e.g. ``blocksworld_3``).

Parameters (``-T name=value``): ``method`` (none: inspect's ``generate()``
answers PlanBench's prompt once, as veriplan's ``direct``, and a model endpoint
where nothing listens fails at once, :func:`~veriplan.inspect.solver.answer_once`; else a veriplan
method run through inspect's model, e.g. ``closed-loop`` or ``backprompt``),
``config`` (the method's settings, a mapping), ``prompt`` (``planbench``:
PlanBench's natural-language prompt, the default for Blocksworld and Mystery;
``pddl``: the task in PDDL, the default for Logistics and Blocksworld-hard,
whose PlanBench configs veriplan cannot render), ``one_shot``, ``data_dir``
(else ``VERIPLAN_DATA``), ``limit`` (instances read; inspect's ``--limit``
picks among those).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.model import GenerateConfig

from veriplan.inspect.dataset import planbench_dataset
from veriplan.inspect.scorer import plan_validator
from veriplan.inspect.solver import answer_once, veriplan_method

# PlanBench's one-shot generation as veriplan's ``direct`` asks for it.
DIRECT = GenerateConfig(temperature=0.0, max_tokens=400, stop_seqs=["[PLAN END]"])


def build(dataset: str, method: str | None = None,
          config: Mapping[str, object] | str | None = None, prompt: str = "planbench",
          one_shot: bool = True, data_dir: str | None = None, limit: int | None = None) -> Task:
    """The task on the veriplan dataset ``dataset`` (see the module's doc)."""
    samples = planbench_dataset(dataset, Path(data_dir) if data_dir else None, prompt=prompt,
                                one_shot=one_shot, limit=limit)
    chosen = answer_once() if method is None else veriplan_method(method, config)
    return Task(dataset=samples, solver=chosen, scorer=plan_validator(), config=DIRECT,
                metadata={"veriplan_dataset": dataset, "veriplan_method": method or "generate"})


@task
def planbench(dataset: str = "blocksworld", method: str | None = None,
              config: Mapping[str, object] | str | None = None, prompt: str = "planbench",
              one_shot: bool = True, data_dir: str | None = None,
              limit: int | None = None) -> Task:
    """Plan generation on any PDDL dataset of veriplan's registry, judged by
    veriplan's validator."""
    return build(dataset, method, config, prompt, one_shot, data_dir, limit)


@task
def planbench_blocksworld(method: str | None = None,
                          config: Mapping[str, object] | str | None = None,
                          prompt: str = "planbench", one_shot: bool = True,
                          data_dir: str | None = None, limit: int | None = None) -> Task:
    """PlanBench Blocksworld (500 instances, one-shot)."""
    return build("blocksworld", method, config, prompt, one_shot, data_dir, limit)


@task
def planbench_mystery(method: str | None = None, config: Mapping[str, object] | str | None = None,
                      prompt: str = "planbench", one_shot: bool = True,
                      data_dir: str | None = None, limit: int | None = None) -> Task:
    """PlanBench Mystery Blocksworld (500 instances, one-shot, obfuscated names)."""
    return build("mystery_blocksworld", method, config, prompt, one_shot, data_dir, limit)


@task
def planbench_logistics(method: str | None = None, config: Mapping[str, object] | str | None = None,
                        prompt: str = "pddl", one_shot: bool = True,
                        data_dir: str | None = None, limit: int | None = None) -> Task:
    """PlanBench Logistics (200 instances). The prompt is the task in PDDL:
    PlanBench's Logistics config leaves the type facts (``(truck t0)``) out of
    its text with empty templates, which veriplan's prompt renderer does not
    accept yet (``-T prompt=planbench`` says so)."""
    return build("logistics", method, config, prompt, one_shot, data_dir, limit)


@task
def planbench_blocksworld_hard(method: str | None = None,
                               config: Mapping[str, object] | str | None = None,
                               prompt: str = "pddl", one_shot: bool = False,
                               data_dir: str | None = None, limit: int | None = None) -> Task:
    """PlanBench's Blocksworld-hard (110 problems of 6 to 16 blocks, zero-shot).
    The prompt is the task in PDDL: this set's PlanBench config has no
    natural-language templates."""
    return build("blocksworld_hard", method, config, prompt, one_shot, data_dir, limit)
