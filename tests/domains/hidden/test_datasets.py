"""The three families as registered benchmark datasets."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from veriplan.bench.datasets import DATASETS, load_dataset
from veriplan.domains.hidden import HiddenTask
from veriplan.domains.hidden.datasets import howto_dataset, recipes_dataset
from veriplan.errors import DataError


def test_registered():
    assert {"sqbcp_pddl_hidden", "sqbcp_recipes", "sqbcp_howto"} <= set(DATASETS)


@pytest.mark.parametrize("name, n, first", [
    ("sqbcp_recipes", 249, "recipe-0-v0"),
    ("sqbcp_howto", 213, "howto-h001-v0"),
])
def test_natural_language_datasets(tmp_path, name, n, first):
    ds = DATASETS.get(name)(tmp_path)  # the data directory is not read
    assert ds.name == name and len(ds.instances) == n and ds.instances[0].id == first
    assert len(ds.version) == 16 and DATASETS.get(name)(tmp_path).version == ds.version
    inst = ds.instances[5]
    task = inst.problem("hidden")
    assert isinstance(task, HiddenTask) and task.id == inst.id
    assert inst.problem("hidden") is task  # built once
    with pytest.raises(DataError, match="holds 'hidden' problems"):
        inst.problem("pddl")


def test_hidden_pddl_dataset(data_dir: Path):
    ds = load_dataset("sqbcp_pddl_hidden", data_dir)
    ids = [i.id for i in ds.instances]
    assert len(ids) >= 200 and ids[0] == "blocksworld/instance-1"
    assert any(i.startswith("logistics/") for i in ids)
    task = ds.instances[0].problem("hidden")
    assert task.id == "blocksworld/instance-1" and task.family == "pddl_hidden"
    assert task.payload["visible_task"] is not None


def _recipes_csv(path: Path, n: int) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["", "title", "ingredients", "directions", "link", "source", "NER"])
        for i in range(n):
            w.writerow([i, f"Cake {i}", json.dumps(["butter", "sugar", "eggs"]),
                        json.dumps(["Preheat the oven.", "Cream the butter and sugar.",
                                    "Beat in the eggs.", "Bake in a cake pan."]),
                        "", "Gathered", json.dumps(["butter", "sugar", "eggs"])])
    return path


def test_a_users_files(tmp_path):
    ds = recipes_dataset(_recipes_csv(tmp_path / "full_dataset.csv", 4), variants=2)
    assert len(ds.instances) == 8 and ds.name == "sqbcp_recipes"
    assert ds.instances[3].problem("hidden").id == "recipe-1-v1"
    other = recipes_dataset(_recipes_csv(tmp_path / "other.csv", 5), variants=2)
    assert other.version != ds.version
    assert len(recipes_dataset(tmp_path / "other.csv", limit=2).instances) == 6
    article = {"id": "x", "title": "How to Glue", "steps": ["Glue it with wood glue."] * 4,
               "things_needed": ["Wood glue", "Clamps", "Sandpaper"]}
    (tmp_path / "a.jsonl").write_text(json.dumps(article) + "\n", encoding="utf-8")
    assert [i.id for i in howto_dataset(tmp_path / "a.jsonl", variants=1).instances] == [
        "howto-x-v0"]
    with pytest.raises(DataError, match="does not exist"):
        recipes_dataset(tmp_path / "missing.csv")
