"""A second layer for secrets: the sandbox gives model-written code no way to
read veriplan's environment, and whatever comes back from it (feedback,
stored records) is scrubbed of the values of configured secrets anyway.

Configured secrets: the backends' key variables (:data:`KNOWN`), any
environment variable whose name says it holds one (KEY, TOKEN, SECRET,
PASSWORD, CREDENTIAL) and the names listed in ``VERIPLAN_SECRETS``
(comma-separated). Values shorter than 8 characters are not scrubbed (they
would match ordinary text).
"""

from __future__ import annotations

import os
import re
from typing import TypeVar

KNOWN = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN")
_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL", re.I)
REPLACEMENT = "[secret removed]"
MIN_LENGTH = 8

T = TypeVar("T")


def secret_values(environ: dict[str, str] | None = None) -> list[str]:
    env = os.environ if environ is None else environ
    extra = {n.strip() for n in env.get("VERIPLAN_SECRETS", "").split(",") if n.strip()}
    values = {v for k, v in env.items()
              if (k in KNOWN or k in extra or _NAME.search(k)) and len(v) >= MIN_LENGTH}
    return sorted(values, key=len, reverse=True)


def scrub(obj: T, values: list[str] | None = None) -> T:
    """``obj`` (strings, lists, tuples, dicts, nested) with every secret value
    replaced, of the same shape and types (anything else is kept as it is)."""
    values = secret_values() if values is None else values
    if not values:
        return obj
    return _scrub(obj, values)


def _scrub(obj: T, values: list[str]) -> T:
    if isinstance(obj, str):
        for v in values:
            if v in obj:
                obj = obj.replace(v, REPLACEMENT)
        return obj
    if isinstance(obj, list | tuple):
        return type(obj)(_scrub(x, values) for x in obj)
    if isinstance(obj, dict):
        return {_scrub(k, values): _scrub(v, values) for k, v in obj.items()}
    return obj
