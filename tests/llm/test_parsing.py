"""Output helpers: code blocks, JSON with repair, action lines."""

from __future__ import annotations

import pytest

from veriplan.errors import LLMOutputParseError
from veriplan.llm.parsing import action_lines, extract_json, last_code_block


def test_last_code_block():
    text = "a\n```python\nx = 1\n```\nthen\n```python\ndef f():\n    return 2\n```\nbye"
    assert last_code_block(text) == "def f():\n    return 2\n"
    assert last_code_block("```\nplain\n```", "python") == "plain\n"
    assert last_code_block("```python\nunterminated") == "unterminated\n"
    with pytest.raises(LLMOutputParseError) as info:
        last_code_block("no code here")
    assert info.value.raw == "no code here"


@pytest.mark.parametrize(("text", "value"), [
    ('{"a": 1}', {"a": 1}),
    ('Sure! ```json\n{"a": [1, 2,],}\n```', {"a": [1, 2]}),
    ("{'a': True, 'b': None}", {"a": True, "b": None}),
    ('first {"a": 1} then {"b": "x}"}', {"b": "x}"}),
    ("[1, 2, 3]", [1, 2, 3]),
])
def test_extract_json(text, value):
    assert extract_json(text) == value


def test_extract_json_failure_keeps_raw():
    with pytest.raises(LLMOutputParseError) as info:
        extract_json("no json {here")
    assert info.value.raw == "no json {here" and info.value.expected == "a JSON object"


def test_action_lines():
    assert action_lines("Plan:\n1. (pick-up a)\n- (stack a b)\nDone") == [
        "(pick-up a)", "(stack a b)"]
    with pytest.raises(LLMOutputParseError):
        action_lines("nothing")
