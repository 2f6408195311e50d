"""PlanBench datasets hold exactly the instances PlanBench's plan-generation
scripts query for each config's start/end bounds, and mystery_blocksworld_600
is the closed-loop paper's evaluation set."""

from __future__ import annotations

import json

import pytest

from veriplan.bench.datasets import load_dataset, planbench_dataset
from veriplan.errors import DataError


@pytest.mark.parametrize(("name", "count", "first", "last"), [
    ("blocksworld", 500, 2, 501),  # start 1, end 500: 501 files, instance-1 only an example
    ("blocksworld_3", 100, 2, 101),
    ("mystery_blocksworld", 500, 2, 501),  # 502 files (instance-0 .. instance-501)
    ("mystery_blocksworld_3", 100, 2, 101),
    ("logistics", 200, 2, 201),  # start 1, end 200 of 286 files
    ("blocksworld_hard", 110, 1, 110),  # zero-shot: all 110 (the DRIP paper's count)
])
def test_planbench_bounds(data_dir, name, count, first, last):
    ds = load_dataset(name, data_dir)
    ids = [i.id for i in ds.instances]
    assert len(ids) == len(set(ids)) == count
    assert ids == [f"instance-{k}" for k in range(first, last + 1)]


@pytest.mark.parametrize(("name", "responses"), [
    ("blocksworld", "blocksworld__gpt-4_chat__one_shot.json"),
    ("mystery_blocksworld", "mystery_blocksworld__gpt-4_chat__one_shot.json"),
])
def test_the_instances_and_examples_planbench_queried(data_dir, name, responses):
    """PlanBench's recorded GPT-4 responses name the instance each prompt asked
    about and the example it showed: the dataset has the same, in order."""
    recorded = json.loads((data_dir / "planbench/responses" / responses).read_text())
    want = [(i["instance_id"], (i.get("example_instance_ids") or [i.get("example_instance_id")])[0])
            for i in recorded["instances"]]
    ds = load_dataset(name, data_dir)
    got = [(int(i.id.split("-")[1]), int(i.previous.stem.split("-")[1])) for i in ds.instances]
    assert got == sorted(want)


def test_the_papers_600_mystery_instances(data_dir):
    ds = load_dataset("mystery_blocksworld_600", data_dir)
    assert len(ds.instances) == 600 == len({i.id for i in ds.instances})
    parts = [i.id.split("/")[0] for i in ds.instances]
    assert parts.count("mystery_blocksworld") == 500 and parts.count("mystery_blocksworld_3") == 100
    assert all(i.dataset == "mystery_blocksworld_600" for i in ds.instances)
    assert all("mystery" in str(i.problem_path) for i in ds.instances)
    three = [i for i in ds.instances if i.id.startswith("mystery_blocksworld_3/")]
    assert {len(i.task().objects) for i in three} == {3}
    assert three[0].previous is None  # the three-block folder has no instance-0
    assert three[0].planbench_config() is not None


def test_bounds_that_name_a_missing_file_are_an_error(tmp_path):
    (tmp_path / "probs").mkdir()
    (tmp_path / "domain.pddl").write_text("(define (domain d) (:predicates (p)))")
    for k in (1, 2, 3):
        (tmp_path / "probs" / f"instance-{k}.pddl").write_text(
            f"(define (problem p{k}) (:domain d) (:init) (:goal (p)))")
    (tmp_path / "c.yaml").write_text("start: 1\nend: 2\ninstances_template: instance-{}.pddl\n")
    ds = planbench_dataset("x", tmp_path, "domain.pddl", "probs", "c.yaml")
    assert [i.id for i in ds.instances] == ["instance-2", "instance-3"]
    (tmp_path / "c.yaml").write_text("start: 1\nend: 3\n")
    with pytest.raises(DataError, match="instance-4.pddl"):
        planbench_dataset("x", tmp_path, "domain.pddl", "probs", "c.yaml")
    (tmp_path / "c.yaml").write_text("n_instances: 3\n")
    with pytest.raises(DataError, match="no integer start and end"):
        planbench_dataset("x", tmp_path, "domain.pddl", "probs", "c.yaml")


def test_zero_shot_sets_have_no_example_and_a_bounds_only_config_words_no_prompt(data_dir):
    """Blocksworld-hard is queried zero-shot and its config holds only bounds: no
    instance gets the previous one as an example or a PlanBench config (methods prompt
    in PDDL); a one-shot set keeps both."""
    from veriplan.bench.datasets import load_dataset

    hard = load_dataset("blocksworld_hard", data_dir)
    assert all(i.previous is None and i.planbench_config() is None for i in hard.instances)
    problem = hard.instances[1].problem()
    assert problem.planbench_config() is None and problem.one_shot_example() is None
    blocks = load_dataset("blocksworld", data_dir)
    assert all(i.previous is not None for i in blocks.instances)
    assert blocks.instances[0].planbench_config() is not None
