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


# A clean plan step, ``(action arg ...)`` in lower case with spaces and tabs around
# the words (the plan readers' fast path, veriplan.planio.pddl_plan, and the one-pass
# judge of veriplan.verify.batch read it, each without the other's start-up).
CLEAN_STEP = r"\([ \t]*+[a-z_][a-z0-9_\-]*+(?:[ \t]++[a-z0-9_][a-z0-9_\-]*+)*+[ \t]*+\)"
#: One line of a text of clean steps (split at "\n"; the last may not end in "\r"):
#: blank, or one clean step (with the parentheses, in group 1).
CLEAN_LINE = re.compile(rf"[ \t]*+(?:({CLEAN_STEP})[ \t]*+)?\r?")


def is_name(text: str) -> bool:
    """Whether ``text`` is a name by the rule above (in any case)."""
    return _NAME.fullmatch(text) is not None
