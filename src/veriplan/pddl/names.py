"""The one rule for names, shared by the PDDL reader and the plan readers.

A name (of an action, predicate, type, object or constant) is a run of characters
other than white space, parentheses, ``;`` and ``,``, and does not start with
``?`` (a variable) or stand alone as ``-`` (the type separator). Names are case
insensitive: both readers lower-case them with :meth:`str.lower`. So ``α``,
``a.b``, ``loc:1``, ``1`` and ``名前`` are names, and a plan step ``(move α a.b)``
reads in every task whose domain reader accepted them.
"""

from __future__ import annotations

import re

#: One character of a name, as a regular expression.
NAME_CHAR = r"[^\s(),;]"
#: A name, as a regular expression (the rule above, whole).
NAME = rf"(?!\?)(?!-(?!{NAME_CHAR})){NAME_CHAR}+"
_NAME = re.compile(NAME)


def is_name(text: str) -> bool:
    """Whether ``text`` is a name by the rule above (in any case)."""
    return _NAME.fullmatch(text) is not None
