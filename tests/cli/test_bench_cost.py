"""``veriplan bench --json`` gives ``cost`` only for a priced run (docs/json.md): a
local backend's run costs 0.0, an unpriced run (an API model, no price) has no
``cost`` at all, never a 0.0 that reads as free."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from tests.cli.test_json_cli import check_document
from veriplan.bench.runner import Progress
from veriplan.bench.store import UnitRecord
from veriplan.cli import main


def _bench(data_dir: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> dict:
    code = main(["bench", "direct", "--dataset", "blocksworld", "--limit", "2", "--data-dir",
                 str(data_dir), "--out", str(out), "--backend", "scripted", "--script",
                 "tests.bench.scripts:solver", "--no-cache", "--config", "prompt=pddl",
                 "--json"])
    text = capsys.readouterr().out
    assert code == 0, text
    return check_document(text, "bench")


def test_a_local_backend_s_run_costs_nothing(data_dir, tmp_path, capsys):
    doc = _bench(data_dir, tmp_path / "bench", capsys)
    assert doc["done"] == 2 and doc["cost"] == 0.0


def test_an_unpriced_run_has_no_cost(data_dir, tmp_path, capsys, monkeypatch):
    # the scripted backend as an API model veriplan has no price for
    monkeypatch.setattr("veriplan.llm.usage.LOCAL_BACKENDS", frozenset())
    doc = _bench(data_dir, tmp_path / "bench", capsys)
    assert doc["done"] == 2 and doc["tokens"] > 0
    assert "cost" not in doc, json.dumps(doc)


def _record(status: str = "done", cost: float | None = 0.0) -> UnitRecord:
    return UnitRecord("u", "direct", "blocksworld", "i", "b", "m", "{}", 0, status, True,
                      "llm", 1, 10, cost, 0.1, None, None, None, "0", "0", 0.0)


def test_one_unit_without_a_price_leaves_the_run_without_a_cost():
    p = Progress(total=3)
    assert p.known_cost is None  # nothing ran: no cost either
    p.add(_record(cost=0.25))
    p.add(_record(cost=0.5))
    assert p.known_cost == 0.75
    p.add(dataclasses.replace(_record(status="error", cost=None), verified=False))
    assert p.known_cost == 0.75  # an error unit records no usage
    p.add(_record(cost=None))
    assert p.known_cost is None and p.cost == 0.75
