"""One argument contract (veriplan.core.arguments) on the batch face: a
``validate --batch`` line (and a ``validate_many`` item) with a key no item has is
refused with the valid names, not judged as if the key were not there; the names
every face shares (domain_path, problem_path, plan_path, planbench_config_path)
are read beside the batch files' older ones (domain, problem, plan_file,
planbench_config), both of one argument refused; messages name the key the item
gave; a path refused by --confine is shown as given, with --base-dir as given
(never the directory's resolved absolute path)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES
from veriplan.cli import main
from veriplan.core.arguments import BATCH_ITEM
from veriplan.verify.batch import batch_lines, validate_many

OLD = {"domain": str(EXAMPLES / "blocks-domain.pddl"),
       "problem": str(EXAMPLES / "blocks-problem.pddl")}
NEW = {"domain_path": OLD["domain"], "problem_path": OLD["problem"]}
PLAN = str(EXAMPLES / "blocks-plan.txt")


def records(*items: object, **kw: object) -> list[dict]:
    lines = [json.dumps(i) + "\n" for i in items]
    return [json.loads(text) for _, text in batch_lines(lines, **kw)]


def test_a_line_with_an_unknown_key_is_refused_with_the_valid_names(capsys, tmp_path) -> None:
    batch = tmp_path / "batch.jsonl"
    batch.write_text(json.dumps({"id": 1, **OLD, "plan_file": PLAN, "tolerence": 0.1}) + "\n"
                     + json.dumps({"id": 2, **OLD, "plan_file": PLAN}) + "\n")
    code = main(["validate", "--batch", str(batch)])
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 4 and [r["valid"] for r in out] == [None, True]
    error = out[0]["error"]
    assert error["kind"] == "item" and "unknown key 'tolerence'" in error["message"]
    assert BATCH_ITEM.valid_text() in error["message"]
    (verdict,) = validate_many([{**OLD, "plan_file": PLAN, "colour": "red"}])
    assert verdict.error is not None and "unknown key 'colour'" in verdict.error.message


def test_the_shared_names_are_read_beside_the_older_ones() -> None:
    old, new, mixed = records({"id": "a", **OLD, "plan_file": PLAN},
                              {"id": "a", **NEW, "plan_path": PLAN},
                              {"id": "a", "domain_path": OLD["domain"], "problem": OLD["problem"],
                               "plan": "(unstack c a)"})
    assert {**old, "line": 2} == new and old["valid"] is True
    assert mixed["error"] is None and mixed["valid"] is False
    config = str(EXAMPLES / "blocks-planbench.yaml")
    text = (EXAMPLES / "blocks-plan-planbench.txt").read_text()
    (planbench,) = validate_many([{**NEW, "plan": text, "format": "planbench",
                                   "planbench_config_path": config}])
    assert planbench.valid is True


@pytest.mark.parametrize(("item", "words"), [
    ({**NEW, "domain": OLD["domain"], "plan": ""}, "both 'domain' and 'domain_path'"),
    ({**OLD, "plan_file": PLAN, "plan_path": PLAN}, "both 'plan_file' and 'plan_path'"),
    ({**NEW, "plan": "", "plan_path": PLAN}, "both 'plan' and 'plan_path'"),
    ({**NEW, "plan_path": 3}, "'plan_path' must be a file path"),
    ({"problem_path": OLD["problem"], "plan": ""}, "no 'domain_path' (or 'domain')"),
    (NEW, "neither 'plan' (text) nor 'plan_path' (or 'plan_file')"),
    ({**NEW, "plan": "", "format": "planbench"}, "needs 'planbench_config_path'"),
])
def test_messages_name_the_keys_the_item_gave(item: dict, words: str) -> None:
    (record,) = records(item)
    assert record["error"]["kind"] == "item" and words in record["error"]["message"], record
    if "plan_file" not in json.dumps(item):
        assert "plan_file'" not in record["error"]["message"].replace("(or 'plan_file')", "")


def test_a_confined_path_is_refused_as_given(tmp_path: Path, monkeypatch) -> None:
    base = tmp_path / "base"
    base.mkdir()
    for name in ("blocks-domain.pddl", "blocks-problem.pddl"):
        (base / name).write_text((EXAMPLES / name).read_text())
    (tmp_path / "secret.txt").write_text("TOP-SECRET\n")
    os.symlink(tmp_path / "secret.txt", base / "link.txt")
    monkeypatch.chdir(tmp_path)
    items = [{"domain_path": "blocks-domain.pddl", "problem_path": "blocks-problem.pddl",
              "plan_path": path} for path in ("../secret.txt", "link.txt")]
    for record in records(*items, base_dir="base", confine=True):
        message = record["error"]["message"]
        assert record["error"]["kind"] == "refused"
        assert str(tmp_path) not in message and "TOP-SECRET" not in message
        assert "outside the base directory base;" in message and "--base-dir" in message


def test_docs_json_md_holds_the_contracts_table() -> None:
    from tests.conftest import REPO
    from veriplan.core.arguments import markdown_table

    assert markdown_table() in (REPO / "docs" / "json.md").read_text(), (
        "docs/json.md's argument table differs from veriplan.core.arguments: paste "
        "markdown_table()'s output in its place")
