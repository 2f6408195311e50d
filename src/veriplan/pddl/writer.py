"""Write domains and problems back to PDDL text (parse(write(x)) == x)."""

from __future__ import annotations

from veriplan.core.atom import Atom, Literal
from veriplan.lazyre import LazyPattern
from veriplan.pddl.ast import (
    OBJECT,
    TRUE,
    ActionSchema,
    And,
    Compare,
    Domain,
    DurativeAction,
    Effect,
    Equals,
    Exists,
    Forall,
    ForallEffect,
    Formula,
    FuncTerm,
    Imply,
    Increase,
    Not,
    NumericEffect,
    NumExpr,
    Or,
    Param,
    Problem,
    When,
    expr_pddl,
)
from veriplan.pddl.constraints import Constraint, PreferenceSite


def _typed(names: list[tuple[str, str]]) -> str:
    # An untyped name before a typed one would take that type: write "- object"
    # unless the whole list is untyped.
    if all(t == OBJECT for _, t in names):
        return " ".join(n for n, _ in names)
    return " ".join(f"{n} - {t}" for n, t in names)


def _params(params: tuple[Param, ...]) -> str:
    return "(" + _typed([(p.name, p.type) for p in params]) + ")"


def expr_to_pddl(e: NumExpr) -> str:
    """PDDL text of a numeric expression (numbers read back to the same value)."""
    return expr_pddl(e)


def formula_to_pddl(f: Formula) -> str:
    if isinstance(f, Atom):
        return str(f)
    if isinstance(f, Compare):
        return f"({f.op.value} {expr_to_pddl(f.left)} {expr_to_pddl(f.right)})"
    if isinstance(f, Equals):
        return f"(= {f.left} {f.right})"
    if isinstance(f, Not):
        return f"(not {formula_to_pddl(f.arg)})"
    if isinstance(f, And):
        return "(and " + " ".join(formula_to_pddl(p) for p in f.parts) + ")" if f.parts else "(and)"
    if isinstance(f, Or):
        return "(or " + " ".join(formula_to_pddl(p) for p in f.parts) + ")"
    if isinstance(f, Imply):
        return f"(imply {formula_to_pddl(f.lhs)} {formula_to_pddl(f.rhs)})"
    if isinstance(f, Exists | Forall):
        key = "exists" if isinstance(f, Exists) else "forall"
        return f"({key} {_params(f.params)} {formula_to_pddl(f.body)})"
    raise TypeError(f"not a formula: {f!r}")


def _func(t: FuncTerm) -> str:
    return "(" + " ".join((t.name, *t.args)) + ")"


def effect_to_pddl(e: Effect) -> str:
    if isinstance(e, Literal):
        return str(e.atom) if e.positive else f"(not {e.atom})"
    if isinstance(e, When):
        return f"(when {formula_to_pddl(e.condition)} {effects_to_pddl(e.effects)})"
    if isinstance(e, ForallEffect):
        return f"(forall {_params(e.params)} {effects_to_pddl(e.effects)})"
    if isinstance(e, Increase):
        v = _func(e.value) if isinstance(e.value, FuncTerm) else repr(e.value)
        return f"(increase (total-cost) {v})"
    if isinstance(e, NumericEffect):
        return f"({e.op.value} {_func(e.target)} {expr_to_pddl(e.value)})"
    raise TypeError(f"not an effect: {e!r}")


def effects_to_pddl(effects: tuple[Effect, ...]) -> str:
    return "(and " + " ".join(effect_to_pddl(e) for e in effects) + ")"


def _action(a: ActionSchema, prefs: tuple = ()) -> str:
    pre = formula_to_pddl(a.precondition)
    if prefs:  # PDDL 3: the action's precondition preferences, in its top-level 'and'
        parts = a.precondition.parts if isinstance(a.precondition, And) else (a.precondition,)
        pre = "(and " + " ".join([formula_to_pddl(f) for f in parts]
                                 + [_preference(x) for x in prefs]) + ")"
    return (
        f"  (:action {a.name}\n"
        f"    :parameters {_params(a.params)}\n"
        f"    :precondition {pre}\n"
        f"    :effect {effects_to_pddl(a.effects)})"
    )


def _timed(when: str, f: Formula) -> list[str]:
    """``(at start f)`` etc., one a conjunct (the reader joins a time's conjuncts
    in one ``and``); none for a time without a condition."""
    if f == TRUE:
        return []
    parts = f.parts if isinstance(f, And) and len(f.parts) > 1 else (f,)
    return [f"({when} {formula_to_pddl(p)})" for p in parts]


def _conj(parts: list[str]) -> str:
    return "(and " + " ".join(parts) + ")" if parts else "(and)"


def _timed_effect(end: str, e: Effect) -> str:
    """``(at end e)``; a ``forall`` outside its time, ``(forall (?x) (at end e))``, as
    PDDL 2.1 (and VAL) has it."""
    if isinstance(e, ForallEffect) and e.effects:
        return (f"(forall {_params(e.params)} "
                f"{_conj([_timed_effect(end, x) for x in e.effects])})")
    return f"(at {end} {effect_to_pddl(e)})"


def _durative(a: DurativeAction) -> str:
    """``(:durative-action ...)`` (PDDL 2.1 level 3): its duration constraints, its
    conditions at start, over all and at end, its effects at each end (``?duration``
    written back as such)."""
    cons = [c.pddl() for c in a.duration]
    duration = cons[0] if len(cons) == 1 else _conj(cons)
    conds = (_timed("at start", a.at_start) + _timed("over all", a.over_all)
             + _timed("at end", a.at_end))
    effs = ([_timed_effect("start", e) for e in a.start_effects]
            + [_timed_effect("end", e) for e in a.end_effects])
    return (
        f"  (:durative-action {a.name}\n"
        f"    :parameters {_params(a.params)}\n"
        f"    :duration {duration}\n"
        f"    :condition {_conj(conds)}\n"
        f"    :effect {_conj(effs)})"
    )


def _preference(pref) -> str:
    """``(preference NAME body)`` under its ``forall`` (PDDL 3)."""
    body = (_constraint(pref.body) if isinstance(pref.body, Constraint)
            else formula_to_pddl(pref.body))
    return _under(pref.params, f"(preference {pref.name} {body})")


def _constraint(c) -> str:
    return _under(c.params, constraint_pddl(c))


def _under(params: tuple[Param, ...], text: str) -> str:
    return f"(forall {_params(params)} {text})" if params else text


def _constraints(hard: tuple, prefs: tuple) -> str | None:
    """``(:constraints (and ...))`` of hard constraints and constraint preferences."""
    parts = [_constraint(c) for c in hard] + [_preference(p) for p in prefs]
    return f"  (:constraints (and {' '.join(parts)}))" if parts else None


def domain_to_pddl(d: Domain) -> str:
    lines = [f"(define (domain {d.name})"]
    if d.requirements:
        lines.append("  (:requirements " + " ".join(d.requirements) + ")")
    if d.types:
        lines.append("  (:types " + " ".join(f"{n} - {t}" for n, t in d.types.items()) + ")")
    if d.constants:
        lines.append("  (:constants " + _typed(list(d.constants.items())) + ")")
    preds = " ".join(f"({name}{' ' if ps else ''}{_params(ps)[1:-1]})"
                     for name, ps in d.predicates.items())
    lines.append(f"  (:predicates {preds})")
    if d.functions:
        funcs = " ".join(f"({name}{' ' if ps else ''}{_params(ps)[1:-1]}) - number"
                         for name, ps in d.functions.items())
        lines.append(f"  (:functions {funcs})")
    lines.extend(
        f"  (:derived ({' '.join((r.pred, _params(r.params)[1:-1])).strip()}) "
        f"{formula_to_pddl(r.body)})" for r in d.derived)
    lines.extend(_durative(a) if isinstance(a, DurativeAction)
                 else _action(a, tuple(p for p in d.preferences if p.action == a.name))
                 for a in d.actions)
    cons = _constraints(d.constraints, tuple(p for p in d.preferences
                                             if p.site is PreferenceSite.CONSTRAINT))
    if cons:
        lines.append(cons)
    return "\n".join(lines) + ")\n"


def problem_to_pddl(p: Problem) -> str:
    objs = [(n, t) for n, t in p.objects.items()]
    lines = [f"(define (problem {p.name})", f"  (:domain {p.domain_name})"]
    lines.append("  (:objects " + _typed(objs) + ")")
    init = [f"    {a}" for a in p.init]
    init += [f"    (= {_func(f)} {v!r})" for f, v in p.numeric_init.items()]
    # PDDL 2.2's timed initial literals, (at t literal): in order of time, as read
    init += [f"    (at {_num(t.time)} {t.literal.pddl()})" for t in p.timed_literals]
    lines.append("  (:init\n" + "\n".join(init) + ")")
    goal_prefs = [x for x in p.preferences if x.site is PreferenceSite.GOAL]
    if goal_prefs:  # PDDL 3: the goal's preferences, in its top-level 'and'
        parts = p.goal.parts if isinstance(p.goal, And) else (p.goal,)
        lines.append("  (:goal (and " + " ".join(
            [formula_to_pddl(f) for f in parts] + [_preference(x) for x in goal_prefs]) + "))")
    else:
        lines.append(f"  (:goal {formula_to_pddl(p.goal)})")
    cons = _constraints(p.constraints, tuple(x for x in p.preferences
                                             if x.site is PreferenceSite.CONSTRAINT))
    if cons:
        lines.append(cons)
    if p.metric:
        lines.append(f"  (:metric {p.metric.pddl()})")
    return "\n".join(lines) + ")\n"


_VARIABLE = LazyPattern(r"\?[^\s()]+")


def put_args(text: str, sub: dict[str, str]) -> str:
    """PDDL text with the variables of ``sub`` replaced by their values."""
    return _VARIABLE.sub(lambda m: sub.get(m.group(), m.group()), text)


def _num(t: float) -> str:
    return str(int(t)) if float(t).is_integer() else repr(t)


def constraint_pddl(c: Constraint, sub: dict[str, str] | None = None) -> str:
    """PDDL text of ``c`` (its ``forall`` left out), the variables of ``sub`` put in."""
    parts = [_num(t) for t in c.times]
    parts += [formula_to_pddl(f) for f in c.formulas]
    text = f"({c.kind.value} {' '.join(parts)})"
    return put_args(text, sub) if sub else text
