"""Plan readers: PDDL-style and PlanBench natural language."""

from __future__ import annotations

import pytest

from tests.helpers import blocks_task
from veriplan.core.plan import Step
from veriplan.errors import ConfigError, PlanParseError
from veriplan.planio import PlanBenchConfig, parse_plan

CFG = PlanBenchConfig.from_dict({
    "domain_name": "bw",
    "actions": {"pick-up": "pick up the {}", "put-down": "put down the {}",
                "stack": "stack the {} on top of the {}",
                "unstack": "unstack the {} from on top of the {}"},
    "predicates": {"ontable": "the {} is on the table", "clear": "the {} is clear",
                   "handempty": "the hand is empty", "holding": "the hand is currently holding {}",
                   "on": "the {} is on top of the {}"},
    "encoded_objects": {"b1": "red block", "b2": "blue block", "b3": "orange block"},
    "encoded_objects_compact": {"b1": "red", "b2": "blue", "b3": "orange"},
})


def steps(parsed) -> list[str]:
    return [str(s) for s in parsed.steps]


@pytest.mark.parametrize("text", [
    "(pick-up b2)\n(stack b2 b3)",
    "pick-up b2\nstack b2 b3\n",
    "1. (pick-up b2)\n2. (stack b2 b3)",
    "Step 1: (PICK-UP B2)\nStep 2: (stack b2 b3) ; on top",
    "```pddl\n(pick-up b2)\n(stack b2 b3)\n```",
    "(pick-up b2)\n\n(stack b2 b3)\n[PLAN END]\n",
    "(pick-up b2)\\n(stack b2 b3)\\n",
    "(pick-up b2) (stack b2 b3)",
    "- (pick-up b2)\n- (stack b2 b3)",
])
def test_pddl_forms(text):
    parsed = parse_plan(text, blocks_task(3))
    assert parsed.ok and steps(parsed) == ["(pick-up b2)", "(stack b2 b3)"]
    assert [s.line for s in parsed.steps][0] is not None


def test_pddl_unread_lines_are_reported_with_numbers():
    parsed = parse_plan("(pick-up b2)\n(stack b2\n(fly b1)\nfly b1", blocks_task(3))
    assert steps(parsed) == ["(pick-up b2)"]
    assert [u.line for u in parsed.unread] == [2, 3, 4]
    with pytest.raises(PlanParseError) as info:
        parsed.raise_for_errors("plan.txt")
    assert info.value.line == 2 and "and 2 more" in str(info.value)


def test_text_after_plan_end_is_counted():
    parsed = parse_plan("(pick-up b2)\n[PLAN END]\nI hope this helps!\n", blocks_task(3))
    assert parsed.ok and parsed.ignored_after_end == 1


@pytest.mark.parametrize(("line", "step"), [
    ("unstack the red block from on top of the blue block", "(unstack b1 b2)"),
    ("Unstack the red block from on top of the blue block.", "(unstack b1 b2)"),
    ("unstack the red block from the blue block", "(unstack b1 b2)"),
    ("stack red block on top of blue block", "(stack b1 b2)"),
    ("stack the red on top of the blue", "(stack b1 b2)"),
    ("stack the b1 on top of the b2", "(stack b1 b2)"),
    ("stack object b1 on top of object b2", "(stack b1 b2)"),
    ("put down the red block on the table", "(put-down b1)"),
    ("pick up the red block from the table", "(pick-up b1)"),
    ("3. pick up the orange block", "(pick-up b3)"),
])
def test_planbench_lines(line, step):
    parsed = parse_plan(line, blocks_task(3), format="planbench", config=CFG)
    assert parsed.ok and steps(parsed) == [step]


@pytest.mark.parametrize("line", [
    "stack the red block under the blue block",
    "pick up the red block with the blue block on top",
    "unstack the red block from the table",
    "unstack the red block",
    "stack the red block on the table",
    "stack the green block on top of the blue block",
])
def test_planbench_lines_without_one_reading_are_rejected(line):
    parsed = parse_plan(line, blocks_task(3), format="planbench", config=CFG)
    assert not parsed.steps and len(parsed.unread) == 1 and parsed.unread[0].line == 1


def test_shared_templates_are_told_apart_by_action_name():
    cfg = PlanBenchConfig.from_dict({
        "actions": {"load-truck": "load {} into {}", "load-airplane": "load {} into {}"},
        "encoded_objects": {"p": "package_{}", "t": "truck_{}", "a": "airplane_{}"}})
    assert cfg.encode("p0") == "package_0" and cfg.encode("l0-1") == "l0-1"

    class T:
        objects = {"p0": "object", "t0": "object", "a0": "object"}
    parsed = parse_plan("load package_0 into truck_0\nload package_0 into airplane_0",
                        T, format="planbench", config=cfg)
    assert steps(parsed) == ["(load-truck p0 t0)", "(load-airplane p0 a0)"]


def test_config_errors(tmp_path):
    with pytest.raises(ConfigError, match="no 'actions'"):
        PlanBenchConfig.from_dict({"domain_name": "x"})
    bad = tmp_path / "c.yaml"
    bad.write_text("actions: [unclosed")
    with pytest.raises(ConfigError, match="not valid YAML"):
        PlanBenchConfig.from_yaml(bad)
    with pytest.raises(ValueError, match="needs the task and a PlanBench config"):
        parse_plan("x", None, format="planbench")


def test_step_parse():
    assert Step.parse("(Stack A B)") == Step("stack", ("a", "b"))
