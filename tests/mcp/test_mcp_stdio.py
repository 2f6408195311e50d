"""`veriplan mcp` over stdio, driven by the MCP SDK's client (a real subprocess,
started once for this module): every tool with valid, invalid and malformed
input, each structured result against its schema in docs/schemas, paths outside
the roots, the size limit, resources, prompts, progress and a cancelled run."""

from __future__ import annotations

import time
from pathlib import Path

import anyio
import pytest

from tests.mcp.conftest import Server, conforms, text_of

TASK = {"domain_path": "blocks-domain.pddl", "problem_path": "blocks-problem.pddl"}
GOOD = ["(unstack c a)", "(put-down c)", "(pick-up b)", "(stack b c)", "(pick-up a)",
        "(stack a b)"]


def test_lists_every_tool_with_input_and_output_schemas(server: Server) -> None:
    tools = server.run(lambda c: c.list_tools()).tools
    names = {t.name for t in tools}
    assert names == {"validate_plan", "validate_batch", "simulate", "applicable_actions",
                     "solve_classical", "check_task", "run_method"}
    for t in tools:
        assert t.input_schema["type"] == "object"
        assert t.output_schema is not None and "schema_id" in t.output_schema["properties"]


def test_validate_plan_valid_by_path(server: Server) -> None:
    r = server.call("validate_plan", {**TASK, "plan_path": "blocks-plan.txt"})
    assert not r.is_error
    doc = r.structured_content
    conforms("validate_plan", doc)
    assert doc["verdict"] == "valid" and doc["valid"] and doc["steps"] == GOOD
    assert doc["findings"] == [] and doc["repair_hints"] == []


def test_validate_plan_invalid_names_step_literals_and_repairs(server: Server) -> None:
    r = server.call("validate_plan", {**TASK, "plan_path": "blocks-bad-plan.txt"})
    doc = r.structured_content
    conforms("validate_plan", doc)
    assert doc["verdict"] == "invalid"
    assert doc["failed_step"] == {"index": 2, "action": "(pick-up b)", "kind": "precondition",
                                  "detail": "precondition (handempty) is false",
                                  "unsatisfied": ["(handempty)"]}
    hint = doc["repair_hints"][0]
    assert hint["literal"] == "(handempty)" and hint["before_step"] == 2
    assert "put-down" in hint["actions"] and "(put-down c)" in hint["ground_actions"]


def test_validate_plan_text_inline_with_prose_unread_and_unmet_goals(server: Server,
                                                                     root: Path) -> None:
    plan = "Here is my plan:\n(unstack c a)\n(put-down c)\n(fly b to the moon)\n"
    r = server.call("validate_plan", {"domain": (root / "blocks-domain.pddl").read_text(),
                                      "problem": (root / "blocks-problem.pddl").read_text(),
                                      "plan": plan, "trace": True})
    doc = r.structured_content
    conforms("validate_plan", doc)
    assert doc["verdict"] == "invalid" and doc["steps"] == ["(unstack c a)", "(put-down c)"]
    assert [u["line"] for u in doc["unread"]] == [4]
    assert set(doc["unmet_goals"]) == {"(on a b)", "(on b c)"}
    assert {h["literal"] for h in doc["repair_hints"]} == {"(on a b)", "(on b c)"}
    assert [s["step"] for s in doc["states"]] == [0, 1, 2]


def test_validate_plan_planbench_free_text(server: Server) -> None:
    r = server.call("validate_plan", {**TASK, "plan_path": "blocks-plan-planbench.txt",
                                      "format": "planbench",
                                      "planbench_config_path": "blocks-planbench.yaml"})
    assert r.structured_content["verdict"] == "valid", text_of(r)


@pytest.mark.parametrize("arguments, words", [
    ({"plan": "(a)"}, "domain is missing"),
    ({**TASK, "plan": "(pick-up a)", "plan_path": "blocks-plan.txt"}, "not both"),
    ({"domain": "(define (domain d) (:requirements :fluffy))", "problem_path":
      "blocks-problem.pddl", "plan": ""}, "fluffy"),
    ({**TASK, "plan": ["(pick-up a)", 3]}, "Error"),
    ({**TASK, "plan": "x", "format": "planbench"}, "PlanBench config"),
])
def test_malformed_input_is_a_tool_error_and_the_server_goes_on(server: Server, arguments,
                                                                 words: str) -> None:
    r = server.call("validate_plan", arguments)
    assert r.is_error and words in text_of(r)
    assert server.call("validate_plan", {**TASK, "plan": GOOD}).structured_content["valid"]


@pytest.mark.parametrize("path", ["../outside.pddl", "link-out.pddl", "sub/../../secret.txt",
                                  "/etc/passwd", "sub/link-secret.txt"])
def test_paths_outside_the_roots_are_refused(server: Server, path: str) -> None:
    for arguments in ({**TASK, "plan_path": path}, {"domain_path": path,
                                                    "problem_path": "blocks-problem.pddl",
                                                    "plan": ""}):
        r = server.call("validate_plan", arguments)
        assert r.is_error and "outside the server's roots" in text_of(r)
        assert "TOP-SECRET" not in text_of(r) and "root:" not in text_of(r)


def test_size_limit(server: Server) -> None:
    r = server.call("validate_plan", {**TASK, "plan_path": "big-plan.txt"})
    assert r.is_error and "limit of 256 KiB" in text_of(r)
    r = server.call("validate_plan", {**TASK, "plan": "(pick-up a)\n" * 30_000})
    assert r.is_error and "limit of 256 KiB" in text_of(r)


def test_simulate_returns_the_state_after_each_step(server: Server) -> None:
    r = server.call("simulate", {**TASK, "plan": GOOD[:3] + ["(stack c c)"]})
    doc = r.structured_content
    conforms("simulate", doc)
    assert [s["step"] for s in doc["states"]] == [0, 1, 2, 3]
    assert "(holding b)" in doc["states"][3]["atoms"] and doc["states"][3]["action"] == GOOD[2]
    assert doc["failed_step"]["index"] == 4 and doc["verdict"] == "invalid"
    r = server.call("simulate", {**TASK, "plan": GOOD, "max_states": 2})
    assert r.structured_content["truncated"] and len(r.structured_content["states"]) == 2


def test_applicable_actions_pages(server: Server) -> None:
    first = server.call("applicable_actions", {**TASK, "limit": 1}).structured_content
    conforms("applicable_actions", first)
    assert first["total"] == 2 and len(first["actions"]) == 1 and first["next_offset"] == 1
    second = server.call("applicable_actions", {**TASK, "limit": 1,
                                                "offset": first["next_offset"]})
    doc = second.structured_content
    assert doc["next_offset"] is None and set(first["actions"] + doc["actions"]) == {
        "(pick-up b)", "(unstack c a)"}
    after = server.call("applicable_actions", {**TASK, "plan": GOOD[:1]}).structured_content
    assert after["after_steps"] == 1 and "(put-down c)" in after["actions"]
    bad = server.call("applicable_actions", {**TASK, "plan": ["(pick-up a)"]})
    assert bad.is_error and "does not execute" in text_of(bad)


@pytest.mark.parametrize("planner", ["bfs", "fd"])
def test_solve_classical_plan_is_rechecked(server: Server, planner: str) -> None:
    r = server.call("solve_classical", {"domain_path": "blocks-domain.pddl",
                                        "problem_path": "blocks6-problem.pddl",
                                        "planner": planner, "time_limit": 15})
    doc = r.structured_content
    if planner == "fd" and r.is_error:
        pytest.skip(f"Fast Downward cannot run here: {text_of(r)}")
    conforms("solve_classical", doc)
    assert doc["solved"] and doc["verdict"] == "valid" and doc["plan"]
    assert server.call("validate_plan", {"domain_path": "blocks-domain.pddl",
                                         "problem_path": "blocks6-problem.pddl",
                                         "plan": doc["plan"]}).structured_content["valid"]
    r = server.call("solve_classical", {**TASK, "planner": "nope"})
    assert r.is_error and "unknown planner" in text_of(r)


def test_check_task_reports_location_and_support(server: Server, root: Path) -> None:
    good = server.call("check_task", TASK).structured_content
    conforms("check_task", good)
    assert good["ok"] and good["supported"] and good["domain"] == "blocks"
    assert good["counts"]["actions"] == 4 and good["counts"]["objects"] == 3
    broken = "(define (domain d)\n  (:requirements :strips)\n  (:predicates (p ?x)\n"
    doc = server.call("check_task", {"domain": broken}).structured_content
    conforms("check_task", doc)
    assert not doc["ok"] and doc["errors"][0]["file"] == "domain"
    assert doc["errors"][0]["line"] is not None
    # durative actions are read now (issue 47); continuous effects are refused by name
    continuous = ("(define (domain d) (:requirements :durative-actions :numeric-fluents\n"
                  " :continuous-effects) (:predicates (p)) (:functions (f))\n"
                  " (:durative-action a :parameters () :duration (= ?duration 1)\n"
                  "  :condition (at start (p)) :effect (increase (f) (* #t 1))))")
    doc = server.call("check_task", {"domain": continuous}).structured_content
    assert not doc["supported"] and doc["errors"][0]["requirement"]


def test_validate_batch_with_progress(server: Server) -> None:
    items = [{"id": i, "plan": GOOD if i % 3 else GOOD[:2]} for i in range(130)]
    items += [{"id": "out", "plan_path": "../secret.txt"}, {"id": "junk", "color": "red"}]
    seen: list[tuple[float, float | None]] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        seen.append((done, total))

    r = server.run(lambda c: c.call_tool("validate_batch", {**TASK, "items": items},
                                         progress_callback=progress))
    doc = r.structured_content
    conforms("validate_batch", doc)
    assert doc["total"] == 132 and doc["valid"] == 86 and doc["invalid"] == 44
    assert doc["unjudged"] == 2 and doc["stopped"] is None
    assert doc["records"][130]["error"]["kind"] == "refused"
    assert "TOP-SECRET" not in str(doc)
    assert [rec["index"] for rec in doc["records"]] == list(range(1, 133))
    assert seen and seen[-1] == (132, 132)


def test_resources_and_prompts(server: Server) -> None:
    listed = server.run(lambda c: c.list_resources()).resources
    uris = {str(r.uri) for r in listed}
    assert "veriplan://examples/blocks-domain.pddl" in uris and "veriplan://datasets" in uris
    body = server.run(lambda c: c.read_resource("veriplan://examples/blocks-domain.pddl"))
    assert "(define (domain blocks)" in body.contents[0].text
    prompts = server.run(lambda c: c.list_prompts()).prompts
    assert {"closed-loop-plan", "backprompt-task"} <= {p.name for p in prompts}
    got = server.run(lambda c: c.get_prompt("closed-loop-plan"))
    assert "lp.j2" in got.messages[0].content.text


def test_run_method_with_the_servers_backend(server: Server) -> None:
    events: list[str | None] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        events.append(message)

    r = server.run(lambda c: c.call_tool("run_method", {**TASK, "method": "closed-loop"},
                                         progress_callback=progress))
    doc = r.structured_content
    assert not r.is_error, text_of(r)
    conforms("run_method", doc)
    assert doc["verified"] and doc["plan"] == GOOD and doc["backend"] == "scripted"
    assert events
    r = server.call("run_method", {**TASK, "method": "autotos"})
    assert r.is_error and "run_method offers" in text_of(r)


def test_a_cancelled_run_stops_and_the_server_goes_on(server: Server, root: Path) -> None:
    slow = (root / "blocks-problem.pddl").read_text().replace("invert-three", "slow")
    calls = root / "calls.txt"

    async def cancelled(c) -> None:
        with anyio.move_on_after(1.5):
            await c.call_tool("run_method", {"domain_path": "blocks-domain.pddl",
                                             "problem": slow,
                                             "settings": {"max_attempts": "40"}})

    before = calls.read_text().count("call") if calls.exists() else 0
    start = time.monotonic()
    server.run(cancelled)
    assert time.monotonic() - start < 5
    time.sleep(1.5)
    made = calls.read_text().count("call")
    assert made - before < 40  # the run stopped long before its 40 attempts
    time.sleep(1.0)
    assert calls.read_text().count("call") <= made + 1
    assert server.call("validate_plan", {**TASK, "plan": GOOD}).structured_content["valid"]


def test_a_scripted_agent_repairs_a_broken_plan_from_the_feedback(server: Server) -> None:
    """An agent loop with no planning knowledge of its own: it inserts what the repair
    hints name (an action that can run now, trying each and keeping the one that gets
    furthest; else one that cannot run yet) until validate_plan says valid."""
    def check(plan: list[str]) -> dict:
        return server.call("validate_plan", {**TASK, "plan": plan}).structured_content

    def score(doc: dict) -> tuple[bool, int, int]:
        return doc["valid"], doc["steps_executed"], -len(doc["unmet_goals"])

    plan = ["(unstack c a)", "(pick-up b)", "(stack b c)"]  # blocks-bad-plan.txt
    doc = check(plan)
    rounds = 0
    while not doc["valid"]:
        rounds += 1
        assert rounds <= 10, doc["feedback"]
        hint = doc["repair_hints"][0]
        at = (hint["before_step"] or len(plan) + 1) - 1
        trials = [plan[:at] + [a] + plan[at:] for a in hint["ground_actions"]]
        if trials:
            plan = max(trials, key=lambda p: score(check(p)))
        else:
            plan = plan[:at] + [hint["not_yet_applicable"][0]] + plan[at:]
        doc = check(plan)
    assert plan == GOOD and rounds == 3


def test_validate_plan_reads_the_ipc_format(server: Server) -> None:
    ipc = "".join(f"{i}.000: {s.upper()} [1.000]\n" for i, s in enumerate(GOOD))
    r = server.call("validate_plan", {**TASK, "plan": ipc + "; cost = 6 (unit cost)\n"})
    assert r.structured_content["verdict"] == "valid" and r.structured_content["steps"] == GOOD


def test_check_task_locates_an_error_in_the_problem(server: Server, root: Path) -> None:
    problem = (root / "blocks-problem.pddl").read_text().replace("(on c a)", "(on c d)")
    doc = server.call("check_task", {"domain_path": "blocks-domain.pddl",
                                     "problem": problem}).structured_content
    conforms("check_task", doc)
    assert not doc["ok"] and doc["domain"] == "blocks"
    (err,) = doc["errors"]
    assert err["file"] == "problem" and err["line"] == 5 and err["col"] is not None
    assert "d" in err["message"]
