"""One argument contract (veriplan.core.arguments) on the MCP face: a single call
refuses an unknown argument as a batch item does, with the valid names; a refused
path reads the same in a single call and in a batch item, and never shows the
server's root; a batch item's messages name the keys it gave (plan_path, not the
batch file's plan_file); the published input schemas are the contract's records.
The server runs in process (the SDK's in-memory client)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import anyio
import pytest

from tests.mcp.conftest import text_of, workspace
from veriplan.core.arguments import ARGUMENTS, BATCH_ITEM, TOOLS, ArgumentKind
from veriplan.mcp.config import Roots, ServerConfig

mcp = pytest.importorskip("mcp", reason="the MCP SDK (pip install 'veriplan[mcp]')")
from mcp import Client  # noqa: E402

from veriplan.mcp.server import build_server  # noqa: E402

TASK = {"domain_path": "blocks-domain.pddl", "problem_path": "blocks-problem.pddl"}


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return workspace(tmp_path_factory.mktemp("args"))


@pytest.fixture(scope="module")
def call(root: Path) -> Callable[[str, dict[str, object]], object]:
    cfg = ServerConfig(roots=Roots.of([root]), backend="scripted",
                       backend_options={"script": "tests.mcp.scripted_model:answer"})
    server = build_server(cfg)

    def run(name: str, arguments: dict[str, object]) -> object:
        async def main() -> object:
            async with Client(server) as client:
                return await client.call_tool(name, arguments)
        return anyio.run(main)
    return run


@pytest.mark.parametrize(("tool", "arguments", "unknown"), [
    ("validate_plan", {**TASK, "plan_path": "blocks-plan.txt", "plan_file": "x"}, "plan_file"),
    ("validate_plan", {**TASK, "plan_path": "blocks-plan.txt", "tolerence": 0.1}, "tolerence"),
    ("simulate", {**TASK, "plan": "(unstack c a)", "max_state": 1}, "max_state"),
    ("check_task", {**TASK, "strict": True}, "strict"),
    ("applicable_actions", {**TASK, "page": 2}, "page"),
    ("solve_classical", {**TASK, "planner": "bfs", "timeout": 1}, "timeout"),
    ("validate_batch", {**TASK, "items": [], "workers": 2}, "workers"),
    ("run_method", {**TASK, "model": "gpt"}, "model"),
])
def test_a_single_call_refuses_an_unknown_argument_with_the_valid_names(
        call: Callable[..., object], tool: str, arguments: dict[str, object],
        unknown: str) -> None:
    r = call(tool, arguments)
    assert r.is_error, f"{tool} ignored the unknown argument {unknown!r}"
    text = text_of(r)
    assert f"unknown key '{unknown}'" in text
    assert TOOLS[tool].valid_text() in text  # every name it takes


def test_a_single_call_and_a_batch_item_refuse_a_path_in_the_same_words(
        call: Callable[..., object], root: Path) -> None:
    for path in ("../secret.txt", "sub/link-secret.txt", str(root.parent / "outside.pddl")):
        single = text_of(call("validate_plan", {**TASK, "plan_path": path}))
        batch = call("validate_batch", {**TASK, "items": [{"plan_path": path}]})
        error = batch.structured_content["records"][0]["error"]
        assert error["kind"] == "refused"
        assert single.endswith(error["message"]), (single, error["message"])
        for text in (single, error["message"]):
            assert str(root) not in text and "<root>" not in text
            assert "TOP-SECRET" not in text


def test_a_batch_item_is_told_about_the_keys_it_gave(call: Callable[..., object]) -> None:
    items = [{"plan": "(unstack c a)", "plan_path": "blocks-plan.txt"}, {"id": "none"},
             {"plan_path": "blocks-plan.txt", "colour": "red"},
             {"plan_path": "blocks-plan.txt", "plan_file": "blocks-plan.txt"}]
    records = call("validate_batch", {**TASK, "items": items}).structured_content["records"]
    both, neither, unknown, twice = (r["error"]["message"] for r in records)
    assert "'plan' and 'plan_path'" in both and "plan_file" not in both
    assert neither.startswith("the item has neither 'plan' (text) nor 'plan_path'")
    assert "unknown key 'colour'" in unknown and BATCH_ITEM.valid_text() in unknown
    assert "both 'plan_file' and 'plan_path'" in twice


def test_a_batch_item_reads_the_batch_files_names_too(call: Callable[..., object]) -> None:
    items = [{"id": "old", "domain": "blocks-domain.pddl", "problem": "blocks-problem.pddl",
              "plan_file": "blocks-plan.txt"},
             {"id": "new", "domain_path": "blocks-domain.pddl",
              "problem_path": "blocks-problem.pddl", "plan_path": "blocks-plan.txt"},
             {"id": "out", "plan_file": "../secret.txt"}]
    doc = call("validate_batch", {**TASK, "items": items}).structured_content
    assert [r["verdict"] for r in doc["records"]] == ["valid", "valid", None]
    assert doc["records"][2]["error"]["kind"] == "refused"


def test_numbers_out_of_range_name_the_key_and_the_range(call: Callable[..., object]) -> None:
    for tool, arguments, words in (
            ("simulate", {"plan": "(unstack c a)", "max_states": "NaN"},
             "max_states must be a whole number, at least 1, not nan"),
            ("applicable_actions", {"offset": -1}, "offset must be a whole number, at least 0"),
            ("applicable_actions", {"limit": True}, "limit must be a whole number"),
            ("solve_classical", {"time_limit": "inf"},
             "time_limit must be a positive finite number of seconds, not inf")):
        r = call(tool, {**TASK, **arguments})
        assert r.is_error and words in text_of(r), text_of(r)


def test_the_published_input_schemas_are_the_contracts_records(
        call: Callable[..., object], root: Path) -> None:
    cfg = ServerConfig(roots=Roots.of([root]), backend="scripted",
                       backend_options={"script": "tests.mcp.scripted_model:answer"})

    async def tools() -> list[object]:
        return await build_server(cfg).list_tools()

    listed = {t.name: t.input_schema for t in anyio.run(tools)}
    assert set(listed) == set(TOOLS)
    for name, schema in listed.items():
        assert list(schema["properties"]) == list(TOOLS[name].names), name
        for key, prop in schema["properties"].items():
            a = ARGUMENTS[key]
            if a.kind in (ArgumentKind.INTEGER, ArgumentKind.NUMBER) and a.minimum is not None:
                bound = ("exclusiveMinimum" if a.above else "minimum")
                found = [p.get(bound) for p in prop.get("anyOf", [prop])]
                assert a.minimum in found, (name, key, prop)


def test_an_item_is_told_the_same_by_the_server_and_by_validate_batch_lines(
        root: Path) -> None:
    import json

    from veriplan.mcp import tools as T
    from veriplan.verify.batch import batch_lines

    task = {k: str(root / v) for k, v in TASK.items()}
    items = [{**task, "plan_path": str(root / "blocks-plan.txt"), "colour": "red"},
             {**task, "plan_file": str(root / "blocks-plan.txt"),
              "plan_path": str(root / "blocks-plan.txt")},
             {**task, "plan": "", "plan_path": str(root / "blocks-plan.txt")},
             {**task, "plan": "", "format": "planbench"},
             {**task, "plan_path": str(root / "nowhere.txt")},
             {**task, "plan_file": 7}, {**task, "plan_path": ""}]
    served = T.validate_batch(ServerConfig(roots=Roots.of([root])), T.Deadline(30), items)
    lines = [json.loads(t) for _, t in batch_lines([json.dumps(i) + "\n" for i in items])]
    assert [r.error["kind"] for r in served.records] == [r["error"]["kind"] for r in lines]
    for mine, theirs in zip(served.records, lines, strict=True):
        # the server writes paths inside its roots relative to them
        assert mine.error["message"] == theirs["error"]["message"].replace(f"{root}/", "")


@pytest.mark.parametrize(("option", "value"), [("--time-limit", "inf"),
                                               ("--method-time-limit", "1e999"),
                                               ("--port", "70000")])
def test_the_servers_own_limits_are_range_checked(capsys, option: str, value: str) -> None:
    from veriplan.cli import main

    assert main(["mcp", "--describe", option, value]) == 2
    err = capsys.readouterr().err
    assert f"{option} must be" in err and "schema_id" not in err


def test_an_item_of_the_wrong_shape_is_its_own_error_and_the_rest_are_judged(
        call: Callable[..., object]) -> None:
    items = [{"plan": {"steps": 1}}, {"colour": [1, {"a": 2}]}, {"plan_path": "blocks-plan.txt"}]
    r = call("validate_batch", {**TASK, "items": items})
    assert not r.is_error, text_of(r)
    records = r.structured_content["records"]
    assert [x["verdict"] for x in records] == [None, None, "valid"]
    assert "'plan' must be the plan's text" in records[0]["error"]["message"]
    assert "unknown key 'colour'" in records[1]["error"]["message"]
