"""The parts of veriplan.mcp that need no server: the schemas in docs/schemas are
the models', paths stay in the roots, limits and the deadline, ``--describe``."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.mcp.conftest import EXAMPLES, SCHEMAS, VERIPLAN, conforms, workspace
from veriplan.mcp import models
from veriplan.mcp import tools as T
from veriplan.mcp.config import Roots, ServerConfig, ToolInputError


@pytest.mark.parametrize("name", sorted(models.DOCUMENTS))
def test_published_schemas_are_the_models(name: str) -> None:
    published = json.loads((SCHEMAS / f"{name}.v{models.SCHEMA_VERSION}.json").read_text())
    assert published == json.loads(json.dumps(models.json_schema(name))), (
        f"docs/schemas/{name}.v1.json differs from veriplan.mcp.models: a change within a "
        "version may only add fields; regenerate the file (docs/mcp.md says how)")


def test_roots_refuse_every_way_out(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    roots = Roots.of([root])
    assert roots.resolve("blocks-domain.pddl", "domain") == str(root / "blocks-domain.pddl")
    assert roots.resolve(str(root / "sub" / ".." / "blocks-plan.txt"), "plan").endswith(
        "blocks-plan.txt")
    for bad in ("../outside.pddl", "link-out.pddl", "sub/link-secret.txt", "/etc/passwd",
                "sub/../../secret.txt", "a\x00b", ""):
        with pytest.raises(ToolInputError):
            roots.resolve(bad, "plan")
    two = Roots.of([root / "sub", root])
    assert two.resolve(str(root / "blocks-plan.txt"), "plan")
    with pytest.raises(Exception, match="not a directory"):
        Roots.of([root / "blocks-plan.txt"])


def test_limits_and_deadline(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    cfg = ServerConfig(roots=Roots.of([root]), max_bytes=1000, max_items=3)
    with pytest.raises(ToolInputError, match="limit of 1000 bytes"):
        T.validate_plan(cfg, T.Deadline(10), domain_path="blocks-domain.pddl",
                        problem_path="blocks-problem.pddl", plan="(pick-up a)\n" * 100)
    item = {"plan_path": "blocks-plan.txt"}
    with pytest.raises(ToolInputError, match="limit of 3"):
        T.validate_batch(cfg, T.Deadline(10), [item] * 4, domain_path="blocks-domain.pddl",
                         problem_path="blocks-problem.pddl")
    doc = T.validate_batch(cfg, T.Deadline(0), [item] * 3, domain_path="blocks-domain.pddl",
                           problem_path="blocks-problem.pddl")
    assert doc.stopped and "time limit" in doc.stopped and doc.records == []
    with pytest.raises(ToolInputError, match="longer than"):
        T.validate_plan(cfg, T.Deadline(0), domain_path="blocks-domain.pddl",
                        problem_path="blocks-problem.pddl", plan_path="blocks-plan.txt")


def test_messages_never_show_the_roots_or_secrets(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    (root / "bad.pddl").write_text("(define (domain d) (:predicates (p ?x)))) junk")
    cfg = ServerConfig(roots=Roots.of([root]))
    with pytest.raises(ToolInputError) as info:
        T.validate_plan(cfg, T.Deadline(10), domain_path="bad.pddl",
                        problem_path="blocks-problem.pddl", plan="")
    assert str(root) not in str(info.value)
    describe = cfg.describe()
    assert "api_key" not in json.dumps(describe)


def test_describe_prints_one_json_document(tmp_path: Path) -> None:
    env = {**os.environ, "OPENAI_API_KEY": "sk-never-shown"}
    out = subprocess.run([VERIPLAN, "mcp", "--describe", "--root", str(EXAMPLES),
                          "--backend", "openai", "--model", "m"], capture_output=True,
                         text=True, check=True, env=env, timeout=120).stdout
    doc = json.loads(out)
    conforms("mcp_server", doc)
    assert {t["name"] for t in doc["tools"]} >= {"validate_plan", "run_method"}
    assert doc["limits"]["roots"] == [str(EXAMPLES.resolve())]
    assert "sk-never-shown" not in out


def test_calls_past_their_limit_hold_their_slot_and_the_rest_are_refused_busy(
        tmp_path: Path) -> None:
    import threading

    import anyio

    from veriplan.mcp.calls import run_call as _run

    cfg = ServerConfig(roots=Roots.of([tmp_path]), time_limit=0.2, max_calls=1)
    release = threading.Event()

    def stuck(deadline: T.Deadline) -> str:  # work that ignores its deadline
        release.wait(10)
        return "done"

    async def main() -> tuple[str, str]:
        from mcp.server.mcpserver.exceptions import ToolError

        with pytest.raises(ToolError, match="longer than the server's limit"):
            await _run(cfg, "stuck", stuck)
        with pytest.raises(ToolError, match="busy"):
            await _run(cfg, "next", lambda d: "never")
        release.set()
        await anyio.sleep(0.2)
        return await _run(cfg, "after", lambda d: "ran"), "ok"

    assert anyio.run(main) == ("ran", "ok")


def test_simulate_max_states_zero_and_a_nan_time_limit_are_refused(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    cfg = ServerConfig(roots=Roots.of([root]))
    kw = {"domain_path": "blocks-domain.pddl", "problem_path": "blocks-problem.pddl"}
    with pytest.raises(ToolInputError,
                       match="max_states must be a whole number, at least 1, not 0"):
        T.simulate(cfg, T.Deadline(30), plan="(unstack c a)", max_states=0, **kw)
    assert len(T.simulate(cfg, T.Deadline(30), plan="(unstack c a)", max_states=1,
                          **kw).states) == 1
    for bad in (float("nan"), float("inf")):
        with pytest.raises(ToolInputError, match="time_limit must be a positive finite "
                                                 "number of seconds, not (nan|inf)"):
            T.solve_classical(cfg, T.Deadline(30), time_limit=bad, **kw)
