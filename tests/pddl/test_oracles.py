"""Our hand-written reader against two maintained parsers (the `pddl` package
and unified-planning), used here as test-only oracles: over every PDDL file
in the shared data (in `make test` every 24th problem of a set; VERIPLAN_ORACLES=all
for every one) the three agree on objects, init, goal and actions."""

from __future__ import annotations

import os
import warnings

import pytest

from tests.pddl.pddl_files import all_pddl_files, domain_problem_sets
from veriplan.pddl.ast import And, Atom, Literal, Not
from veriplan.pddl.parser import read_domain, read_problem

pddl = pytest.importorskip("pddl")
up_io = pytest.importorskip("unified_planning.io")


def _ours_formula(f) -> tuple[frozenset, frozenset]:
    """A conjunction of literals as (positive atoms, negative atoms)."""
    parts = f.parts if isinstance(f, And) else (f,)
    pos = frozenset((a.pred, a.args) for a in parts if isinstance(a, Atom))
    neg = frozenset((a.arg.pred, a.arg.args) for a in parts if isinstance(a, Not))
    assert len(pos) + len(neg) == len(parts), f"not a conjunction of literals: {f}"
    return pos, neg


def _ours(domain, problem):
    actions = {}
    for a in domain.actions:
        adds = frozenset((e.atom.pred, e.atom.args) for e in a.effects
                         if isinstance(e, Literal) and e.positive)
        dels = frozenset((e.atom.pred, e.atom.args) for e in a.effects
                         if isinstance(e, Literal) and not e.positive)
        actions[a.name] = ([(p.name, p.type) for p in a.params],
                           _ours_formula(a.precondition), adds, dels)
    return (set(problem.objects), {(a.pred, a.args) for a in problem.init},
            _ours_formula(problem.goal), actions)


# ----- the `pddl` package ----------------------------------------------------------------
def _pk_atom(p) -> tuple:
    return (p.name.lower(), tuple(_pk_term(t) for t in p.terms))


def _pk_term(t) -> str:
    name = t.name.lower()
    return "?" + name if type(t).__name__ == "Variable" else name


def _pk_formula(f) -> tuple[frozenset, frozenset]:
    parts = f.operands if type(f).__name__ == "And" else (f,)
    pos = frozenset(_pk_atom(p) for p in parts if type(p).__name__ == "Predicate")
    neg = frozenset(_pk_atom(p.argument) for p in parts if type(p).__name__ == "Not")
    return pos, neg


def _pk(dom, prob):
    actions = {}
    for a in dom.actions:
        effs = a.effect.operands if type(a.effect).__name__ == "And" else (a.effect,)
        adds = frozenset(_pk_atom(e) for e in effs if type(e).__name__ == "Predicate")
        dels = frozenset(_pk_atom(e.argument) for e in effs if type(e).__name__ == "Not")
        params = [("?" + v.name.lower(), (sorted(v.type_tags) or ["object"])[0].lower())
                  for v in a.parameters]
        actions[a.name.lower()] = (params, _pk_formula(a.precondition), adds, dels)
    return ({o.name.lower() for o in prob.objects}, {_pk_atom(p) for p in prob.init},
            _pk_formula(prob.goal), actions)


# ----- unified-planning ----------------------------------------------------------------------
def _up_atom(node, params=()) -> tuple:
    f = node.fluent()
    return (f.name.lower(), tuple(_up_arg(a, params) for a in node.args))


def _up_arg(a, params) -> str:
    if a.is_object_exp():
        return a.object().name.lower()
    if a.is_parameter_exp():
        return "?" + a.parameter().name.lower()
    return "?" + str(a).lower()


def _up_formula(nodes, params=()) -> tuple[frozenset, frozenset]:
    pos, neg = set(), set()
    stack = list(nodes)
    while stack:
        n = stack.pop()
        if n.is_and():
            stack.extend(n.args)
        elif n.is_not():
            neg.add(_up_atom(n.arg(0), params))
        else:
            pos.add(_up_atom(n, params))
    return frozenset(pos), frozenset(neg)


def _up(problem):
    actions = {}
    for a in problem.actions:
        params = [("?" + p.name.lower(), p.type.name.lower()) for p in a.parameters]
        adds = frozenset(_up_atom(e.fluent) for e in a.effects if e.value.is_true())
        dels = frozenset(_up_atom(e.fluent) for e in a.effects if e.value.is_false())
        actions[a.name.lower()] = (params, _up_formula(a.preconditions), adds, dels)
    init = {_up_atom(k) for k, v in problem.explicit_initial_values.items()
            if v.is_bool_constant() and v.is_true()}
    return ({o.name.lower() for o in problem.all_objects}, init, _up_formula(problem.goals),
            actions)


def _same(ours, theirs, what: str, path) -> None:
    objs, init, goal, actions = ours
    t_objs, t_init, t_goal, t_actions = theirs
    assert objs == t_objs, f"{what} objects differ on {path}"
    assert init == t_init, f"{what} init differs on {path}"
    assert goal == t_goal, f"{what} goal differs on {path}"
    assert actions == t_actions, f"{what} actions differ on {path}"


def test_the_sets_cover_every_pddl_file(data_dir):
    covered = {d for d, _ in domain_problem_sets(data_dir)}
    covered |= {p for _, ps in domain_problem_sets(data_dir) for p in ps}
    assert covered == all_pddl_files(data_dir)


# Each oracle takes about 40 ms a problem here (unified-planning re-reads the domain with
# every one): `make test` compares every 24th problem of each set and the last;
# VERIPLAN_ORACLES=all compares all 2,117 (about 3 minutes).
EVERY = 1 if os.environ.get("VERIPLAN_ORACLES") == "all" else 24


@pytest.mark.parametrize("index", range(6))
def test_three_parsers_agree_on_every_file(data_dir, index):
    from unified_planning.shortcuts import get_environment

    get_environment().credits_stream = None
    dom_path, problems = domain_problem_sets(data_dir)[index]
    ours_d = read_domain(dom_path)
    pk_d = pddl.parse_domain(dom_path)
    reader = up_io.PDDLReader()
    assert problems, f"no problems for {dom_path}"
    for k, prob_path in enumerate(problems):
        ours = _ours(ours_d, read_problem(prob_path, ours_d))
        if k % EVERY and k != len(problems) - 1:
            continue
        _same(ours, _pk(pk_d, pddl.parse_problem(prob_path)), "pddl package", prob_path)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            up_problem = reader.parse_problem(str(dom_path), str(prob_path))
        _same(ours, _up(up_problem), "unified-planning", prob_path)
