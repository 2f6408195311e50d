"""AEC's prompt templates (``prompts/``), rendered with Jinja's StrictUndefined."""

from __future__ import annotations

from veriplan.methods.templates import renderer

render = renderer(__package__)
