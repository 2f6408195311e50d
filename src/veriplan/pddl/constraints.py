"""PDDL 3 trajectory constraints and preferences: their syntax trees and their reading.

``(:constraints ...)`` (in a domain or a problem) holds constraints on the plan's state
trajectory (:class:`Constraint`, one of :class:`ConstraintKind`), under ``and`` and
``forall``; ``(preference NAME F)`` (:class:`Preference`) names a soft goal, a soft
precondition of an action or a soft constraint; ``(is-violated NAME)`` in the metric is
the number of violated preferences of that name, read as the fluent
:func:`violation_term` (``FuncTerm("is-violated", (NAME,))``) whose value the validator
puts in. The parser (:mod:`veriplan.pddl.parser`) calls :class:`Reader` for these
parts; everything else of the file is read as before.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Union

from veriplan.pddl.ast import Formula, FuncTerm, Param

if TYPE_CHECKING:
    from veriplan.pddl.parser import _Parser
    from veriplan.pddl.sexpr import SList

__all__ = [
    "IS_VIOLATED", "Constraint", "ConstraintKind", "Preference", "PreferenceSite",
    "Reader", "violation_term",
]

IS_VIOLATED = "is-violated"


class ConstraintKind(StrEnum):
    """The modal operators of PDDL 3's constraints (its ``con-GD``)."""

    AT_END = "at end"
    ALWAYS = "always"
    SOMETIME = "sometime"
    WITHIN = "within"
    AT_MOST_ONCE = "at-most-once"
    SOMETIME_AFTER = "sometime-after"
    SOMETIME_BEFORE = "sometime-before"
    ALWAYS_WITHIN = "always-within"
    HOLD_DURING = "hold-during"
    HOLD_AFTER = "hold-after"


# The numbers of times and formulas each kind takes, in the order PDDL 3 writes them.
_SHAPE: dict[ConstraintKind, tuple[int, int]] = {
    ConstraintKind.AT_END: (0, 1),
    ConstraintKind.ALWAYS: (0, 1),
    ConstraintKind.SOMETIME: (0, 1),
    ConstraintKind.WITHIN: (1, 1),
    ConstraintKind.AT_MOST_ONCE: (0, 1),
    ConstraintKind.SOMETIME_AFTER: (0, 2),
    ConstraintKind.SOMETIME_BEFORE: (0, 2),
    ConstraintKind.ALWAYS_WITHIN: (1, 2),
    ConstraintKind.HOLD_DURING: (2, 1),
    ConstraintKind.HOLD_AFTER: (1, 1),
}
_BY_HEAD = {k.value: k for k in ConstraintKind if k is not ConstraintKind.AT_END}


@dataclass(frozen=True, slots=True)
class Constraint:
    """One trajectory constraint: ``kind`` over ``formulas`` (one, or two for
    ``sometime-after``, ``sometime-before`` and ``always-within``) with its ``times``
    (``within`` and ``hold-after``: one, ``always-within``: one, ``hold-during``: two);
    ``params``: the ``forall`` variables it stands under (one constraint for each of
    their bindings). ``line`` is where it is written (1-based; 0: unknown)."""

    kind: ConstraintKind
    formulas: tuple[Formula, ...]
    times: tuple[float, ...] = ()
    params: tuple[Param, ...] = ()
    line: int = field(default=0, compare=False)


class PreferenceSite(StrEnum):
    """Where a preference is written."""

    GOAL = "goal"  # judged on the final state
    CONSTRAINT = "constraint"  # a soft trajectory constraint
    PRECONDITION = "precondition"  # judged each time its action runs


@dataclass(frozen=True, slots=True)
class Preference:
    """``(preference NAME body)``: a goal or precondition ``Formula`` or a
    :class:`Constraint`, under ``forall`` ``params`` (each binding counts as one
    preference of the name); ``action``: the action of a precondition preference."""

    name: str
    body: Union[Formula, Constraint]
    site: PreferenceSite
    params: tuple[Param, ...] = ()
    action: str | None = None
    line: int = field(default=0, compare=False)


def violation_term(name: str) -> FuncTerm:
    """The fluent that stands for ``(is-violated NAME)`` in a metric."""
    return FuncTerm(IS_VIOLATED, (name,))


class Reader:
    """Reads the PDDL 3 parts of one file for a :class:`~veriplan.pddl.parser._Parser`:
    its errors carry the parser's file, line and column."""

    def __init__(self, parser: _Parser) -> None:
        self.p = parser
        self.names: dict[str, str] = {}  # preference name -> where it is first used

    # ----- preferences in goals and preconditions -------------------------------------
    def split(self, node: SList, env: dict[str, str], site: PreferenceSite,
              action: str | None = None) -> tuple[SList, list[Preference]]:
        """``node`` without its preferences (a formula the parser reads as before) and
        the preferences: parts of its top-level ``and``, or under ``forall`` there."""
        if not _mentions(node, "preference"):
            return node, []
        self.p.need_location()
        prefs: list[Preference] = []
        rest = self._strip(node, env, site, action, (), prefs)
        return (rest if rest is not None else _empty_and(node)), prefs

    def _strip(self, node: SList, env: dict[str, str], site: PreferenceSite,
               action: str | None, params: tuple[Param, ...],
               out: list[Preference]) -> SList | None:
        p = self.p
        if not isinstance(node, list) or not node:
            return node
        head = node[0]
        if head == "preference":
            out.append(self.preference(node, env, site, action, params))
            return None
        if head == "and":
            kept = []
            for part in node[1:]:
                r = self._strip(p.lst(part, "a formula"), env, site, action, params, out)
                if r is not None:
                    kept.append(r)
            return _like(node, ["and", *kept])
        if head == "forall" and len(node) == 3 and _mentions(node[2], "preference"):
            inner_params = p.params(p.lst(node[1], "a parameter list"))
            inner = {**env, **{q.name: q.type for q in inner_params}}
            body = p.lst(node[2], "a formula")
            before = len(out)
            r = self._strip(body, inner, site, action, params + inner_params, out)
            if r is not None and len(out) > before and _mentions(r, "preference"):
                raise p.fail("a preference must stand alone under forall: (forall (?x) "
                             "(preference NAME ...))", node)
            return None if r is None or _is_empty_and(r) else _like(node, [node[0], node[1], r])
        if _mentions(node, "preference"):
            raise p.fail(f"a preference may stand only in the top-level 'and' of a {site.value}"
                         f" or under 'forall' there, not inside '{head}'", node)
        return node

    def preference(self, node: SList, env: dict[str, str], site: PreferenceSite,
                   action: str | None, params: tuple[Param, ...]) -> Preference:
        p = self.p
        if len(node) == 2:  # an anonymous preference
            name, body_node = None, node[1]
        elif len(node) == 3:
            name, body_node = str(p.sym(node[1], "a preference name")), node[2]
        else:
            raise p.fail("expected (preference NAME FORMULA)", node)
        body_node = p.lst(body_node, "the preference's formula")
        line = self.line(node)
        if name is None:  # (no metric can name it: counted, never priced)
            name = "anonymous"
            self.names.setdefault(name, f"line {line}")
        else:
            self.note_name(name, node)
        if _mentions(body_node, "preference"):
            raise p.fail(f"preference {name} holds another preference: preferences do not "
                         "nest", body_node)
        body: Formula | Constraint
        if site is PreferenceSite.CONSTRAINT:
            cons = self.constraints(body_node, env, ())
            if len(cons) != 1:
                raise p.fail(f"preference {name} must hold one constraint, such as (always F)",
                             body_node)
            body = cons[0]
        else:
            body = p.formula(body_node, env)
        return Preference(name, body, site, params, action, line)

    def note_name(self, name: str, node: object) -> None:
        """A name used twice is read as VAL and PDDL 3 read it (its violations counted
        together), with a warning naming both places."""
        first = self.names.get(name)
        if first is not None:
            self.p.note(f"preference name {name} is used again (first at {first}): "
                        "their violations are counted together in (is-violated "
                        f"{name}), as VAL counts them; rename one if they are different "
                        "preferences", node)
        else:
            self.names[name] = f"line {self.line(node)}"

    def line(self, node: object) -> int:
        from veriplan.pddl.sexpr import offset_of

        if not self.p.located:
            return 0
        return self.p.src.line_col(offset_of(node))[0]

    # ----- :constraints ------------------------------------------------------------
    def section(self, sec: SList) -> tuple[list[Constraint], list[Preference]]:
        """The hard constraints and the preferences of ``(:constraints F)``."""
        p = self.p
        p.need_location()
        if len(sec) == 1:
            return [], []
        if len(sec) != 2:
            raise p.fail("expected (:constraints FORMULA)", sec)
        hard: list[Constraint] = []
        prefs: list[Preference] = []
        self._section(p.lst(sec[1], "a constraint"), {}, (), hard, prefs)
        return hard, prefs

    def _section(self, node: SList, env: dict[str, str], params: tuple[Param, ...],
                 hard: list[Constraint], prefs: list[Preference]) -> None:
        p = self.p
        if not node:
            return
        head = p.head(node, "a constraint")
        if head == "and":
            for part in node[1:]:
                self._section(p.lst(part, "a constraint"), env, params, hard, prefs)
            return
        if head == "forall":
            if len(node) != 3:
                raise p.fail("'forall' takes a parameter list and one constraint", node)
            inner_params = p.params(p.lst(node[1], "a parameter list"))
            inner = {**env, **{q.name: q.type for q in inner_params}}
            self._section(p.lst(node[2], "a constraint"), inner, params + inner_params,
                          hard, prefs)
            return
        if head == "preference":
            prefs.append(self.preference(node, env, PreferenceSite.CONSTRAINT, None, params))
            return
        hard.extend(self.constraints(node, env, params))

    def constraints(self, node: SList, env: dict[str, str],
                    params: tuple[Param, ...]) -> list[Constraint]:
        """One modal constraint (or an ``and``/``forall`` of them, in a preference)."""
        p = self.p
        head = p.head(node, "a constraint")
        if head == "and":
            out: list[Constraint] = []
            for part in node[1:]:
                out.extend(self.constraints(p.lst(part, "a constraint"), env, params))
            return out
        if head == "forall" and len(node) == 3:
            inner_params = p.params(p.lst(node[1], "a parameter list"))
            inner = {**env, **{q.name: q.type for q in inner_params}}
            return self.constraints(p.lst(node[2], "a constraint"), inner,
                                    params + inner_params)
        if head == "at" and len(node) == 3 and node[1] == "end":
            kind = ConstraintKind.AT_END
            args = list(node[2:])
        elif head in _BY_HEAD:
            kind = _BY_HEAD[head]
            args = list(node[1:])
        else:
            raise p.fail(f"expected a trajectory constraint ((always F), (sometime F), "
                         f"(within t F), (at-most-once F), (sometime-after F G), "
                         f"(sometime-before F G), (always-within t F G), (hold-during t1 t2 "
                         f"F), (hold-after t F) or (at end F)), found '{head}'", node)
        n_times, n_formulas = _SHAPE[kind]
        if len(args) != n_times + n_formulas:
            raise p.fail(f"'{kind.value}' takes {_shape_text(n_times, n_formulas)}, "
                         f"{len(args)} given", node)
        times = tuple(self.time(a, kind) for a in args[:n_times])
        formulas = []
        for a in args[n_times:]:
            f = p.lst(a, "a formula")
            if f and isinstance(f[0], str) and (f[0] in _BY_HEAD or (
                    f[0] == "at" and len(f) == 3 and f[1] == "end")):
                raise p.fail(f"'{f[0]}' inside '{kind.value}': nested trajectory "
                             "constraints are not PDDL 3 (write each at the top of "
                             ":constraints)", f, requirement=":constraints",
                             cls=_unsupported())
            formulas.append(p.formula(f, env))
        return [Constraint(kind, tuple(formulas), times, params, self.line(node))]

    def time(self, tok: object, kind: ConstraintKind) -> float:
        p = self.p
        t = p.value(p.sym(tok, f"a time of '{kind.value}'"))
        if t < 0:
            raise p.fail(f"a time of '{kind.value}' must not be negative, found {tok}", tok)
        return float(t)

    # ----- the metric ---------------------------------------------------------------
    def is_violated(self, node: SList) -> FuncTerm:
        p = self.p
        if len(node) != 2:
            raise p.fail("expected (is-violated NAME)", node)
        name = str(p.sym(node[1], "a preference name"))
        if name not in self.names:
            known = ", ".join(sorted(self.names)[:8]) or "none"
            raise p.fail(f"(is-violated {name}) names no preference: declare one with "
                         f"(preference {name} ...) in the goal, :constraints or an action's "
                         f"precondition (declared: {known})", node)
        return violation_term(name)


def _shape_text(n_times: int, n_formulas: int) -> str:
    parts = []
    if n_times:
        parts.append("a time" if n_times == 1 else f"{n_times} times")
    parts.append("a formula" if n_formulas == 1 else f"{n_formulas} formulas")
    return " and ".join(parts)


def _unsupported() -> type:
    from veriplan.errors import UnsupportedRequirementError

    return UnsupportedRequirementError


def _mentions(node: object, word: str) -> bool:
    if isinstance(node, list):
        return any(_mentions(x, word) for x in node)
    return node == word


def _like(node: SList, items: list) -> SList:
    """A list of ``items`` at ``node``'s place in the text."""
    from veriplan.pddl.sexpr import SList as _S

    out = _S(items)
    off = getattr(node, "offset", None)
    if off is not None:
        out.offset = off
    return out


def _empty_and(node: SList) -> SList:
    return _like(node, ["and"])


def _is_empty_and(node: object) -> bool:
    return isinstance(node, list) and len(node) == 1 and node[0] == "and"

