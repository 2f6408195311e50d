"""Prompt templates: each method keeps its own in a ``prompts/`` folder beside
its code, rendered with Jinja's StrictUndefined (a missing value is an error,
never an empty string in a prompt)."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from importlib import resources

import jinja2


@cache
def environment(package: str) -> jinja2.Environment:
    """The Jinja environment of ``package``'s ``prompts/`` folder (``include``
    works between its templates)."""
    return jinja2.Environment(
        loader=jinja2.FunctionLoader(
            lambda name: resources.files(package).joinpath("prompts", name).read_text()),
        undefined=jinja2.StrictUndefined, keep_trailing_newline=True, autoescape=False)


def renderer(package: str) -> Callable[..., str]:
    """``render(name, **values)`` for ``package``'s templates."""
    def render(name: str, **values: object) -> str:
        return environment(package).get_template(name).render(**values)
    return render
