"""AEC's prompt templates (``prompts/``), rendered with Jinja's StrictUndefined."""

from __future__ import annotations

from functools import cache
from importlib import resources

import jinja2


@cache
def _env() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FunctionLoader(
            lambda name: resources.files(__package__).joinpath("prompts", name).read_text()),
        undefined=jinja2.StrictUndefined, keep_trailing_newline=True, autoescape=False)


def render(name: str, **values: object) -> str:
    return _env().get_template(name).render(**values)
