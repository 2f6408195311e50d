"""Parser for the supported PDDL subset: STRIPS, typing, negative
preconditions, equality, constants, ADL formulas, conditional and ``forall``
effects, and ``:action-costs``.

Anything outside the subset raises :class:`PDDLParseError` (or its subclass
:class:`UnsupportedRequirementError`) with file, line and column. ``strict``
(the default) treats type misuse as an error; ``strict=False`` accepts the
defects some published domains have (Fast Downward accepts them) and reports
each as a :class:`PDDLLenientWarning` with its location.
"""

from __future__ import annotations

import re
import warnings
from typing import TYPE_CHECKING

from veriplan.core.atom import Atom, Literal
from veriplan.errors import (
    PDDLInputFileError,
    PDDLLenientWarning,
    PDDLParseError,
    UnsupportedRequirementError,
)
from veriplan.pddl import ast
from veriplan.pddl.ast import (
    DURATION,
    NEVER,
    OBJECT,
    TOTAL_COST,
    TOTAL_TIME,
    ActionSchema,
    And,
    Arith,
    ArithOp,
    Compare,
    CompareOp,
    DerivedRule,
    Domain,
    DurationConstraint,
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
    Metric,
    MetricDirection,
    Not,
    NumericEffect,
    NumExpr,
    Or,
    Param,
    Problem,
    TimedLiteral,
    UpdateOp,
    When,
    either_members,
    either_type,
)
from veriplan.pddl.constraints import IS_VIOLATED, Constraint, Preference, PreferenceSite
from veriplan.pddl.constraints import Reader as Pddl3Reader
from veriplan.pddl.inputs import BOM, read_text
from veriplan.pddl.names import is_name
from veriplan.pddl.sexpr import (
    _BAD_CHAR,
    _COMMENT,
    SList,
    Source,
    Sym,
    offset_of,
    read_all,
    read_fast,
)

if TYPE_CHECKING:  # (pathlib is not imported: a batch run does without its start-up)
    from pathlib import Path

SUPPORTED_REQUIREMENTS = frozenset({
    ":strips", ":typing", ":negative-preconditions", ":equality",
    ":disjunctive-preconditions", ":existential-preconditions",
    ":universal-preconditions", ":quantified-preconditions",
    ":conditional-effects", ":adl", ":action-costs", ":numeric-fluents", ":fluents",
    ":derived-predicates", ":durative-actions", ":duration-inequalities",
    ":timed-initial-literals", ":preferences", ":constraints",
})
UNSUPPORTED_SECTIONS = {
    ":process": ":time (PDDL+)",
    ":event": ":time (PDDL+)",
}
NUMERIC_OPS = {"<", ">", "<=", ">=", "+", "-", "*", "/"}
COMPARISONS = {op.value: op for op in CompareOp}
ARITHMETIC = {"+": ArithOp.ADD, "-": ArithOp.SUB, "*": ArithOp.MUL, "/": ArithOp.DIV}
UPDATES = {op.value: op for op in UpdateOp}
NUMERIC_EFFECTS = {"decrease", "assign", "scale-up", "scale-down"}


def parse_domain(text: str, *, file: str = "<text>", strict: bool = True) -> Domain:
    """Parse a PDDL domain text (a leading byte-order mark is skipped)."""
    src = Source(_no_bom(text), file)
    try:
        return _Parser(src, strict, located=False).domain()
    except _NeedLocation:
        return _Parser(src, strict, located=True).domain()


def parse_problem(
    text: str, domain: Domain, *, file: str = "<text>", strict: bool = True
) -> Problem:
    """Parse a PDDL problem text of ``domain``; names, arities and types are checked
    (a leading byte-order mark is skipped)."""
    text = _no_bom(text)
    problem = _plain_problem(text, domain, file)
    if problem is not None:
        return problem
    src = Source(text, file)
    try:
        return _Parser(src, strict, domain, located=False).problem()
    except _NeedLocation:
        return _Parser(src, strict, domain, located=True).problem()


def _no_bom(text: str) -> str:
    return text[1:] if text[:1] == BOM else text


def read_domain(path: str | Path, *, strict: bool = True,
                max_bytes: int | None = None) -> Domain:
    """Read and parse a domain file (at most ``max_bytes``, default
    :data:`veriplan.pddl.inputs.DEFAULT_MAX_BYTES`)."""
    return parse_domain(_read_text(path, max_bytes), file=str(path), strict=strict)


def read_problem(path: str | Path, domain: Domain, *, strict: bool = True,
                 max_bytes: int | None = None) -> Problem:
    """Read and parse a problem file of ``domain`` (at most ``max_bytes``)."""
    return parse_problem(_read_text(path, max_bytes), domain, file=str(path), strict=strict)


def _read_text(path: str | Path, max_bytes: int | None = None) -> str:
    """A PDDL file's text: a regular file of at most ``max_bytes``, UTF-8, its
    byte-order mark dropped; else :class:`PDDLInputFileError` naming the file
    (never quoting it)."""
    return read_text(path, what="PDDL file", max_bytes=max_bytes, error=PDDLInputFileError)


class _NeedLocation(Exception):
    """Raised by the fast pass (no source positions) where an error or warning
    needs a location; the text is then read again with positions."""


class _Parser:
    """One pass over a PDDL text. The fast pass (``located=False``) reads plain
    strings and lists; the first error or warning sends the text to a second,
    located pass, so errors cost time and well-formed files do not."""

    def __init__(self, source: Source, strict: bool, domain: Domain | None = None,
                 *, located: bool = True) -> None:
        self.located = located
        self.src = source
        self.strict = strict
        self.dom = domain
        self.warnings: list[str] = []
        # Names an atom may use without further checks (fast pass, untyped domains).
        self.fast_names: dict[str, str] | None = None
        # Names used in the domain but never declared (accepted leniently,
        # resolved against the problem's objects when a task is built).
        self.undeclared: set[str] = set()
        self.in_durative = False  # (reading a durative action: ?duration has a value)
        self.timed: list[TimedLiteral] = []  # a problem's timed initial literals
        # PDDL 3's parts (preferences, :constraints, is-violated), read by its reader
        self.pddl3 = Pddl3Reader(self)
        if domain is not None:
            for pref in domain.preferences:
                self.pddl3.names.setdefault(pref.name, f"{domain.file}:{pref.line}")

    def _read(self) -> list:
        if self.located:
            tops = read_all(self.src)
            if len(tops) == 1:
                return tops[0]
            # (IPC 1998) "(in-package "PDDL")" before the definition, which VAL reads
            # with a warning; and lists after its end, which it ignores
            main = next((t for t in tops if t and t[0] == "define"), tops[0])
            for t in tops:
                if t is main:
                    continue
                if t and t[0] == "in-package" and t.offset < main.offset:
                    self.lenient("(in-package ...) is Lisp, not PDDL (ignored)", t)
                else:
                    self.lenient("text after the end of the definition (ignored)", t)
            return main
        top = read_fast(self.src.text)
        if top is None:
            raise _NeedLocation
        return top

    # ----- helpers -------------------------------------------------------
    def need_location(self) -> None:
        """Read the text again with positions (PDDL 3's parts keep their lines)."""
        if not self.located:
            raise _NeedLocation

    def fail(self, msg: str, node: object, **kw: object) -> PDDLParseError:
        if not self.located:
            raise _NeedLocation
        return self.src.error(msg, offset_of(node, None), **kw)  # type: ignore[arg-type]

    def lenient(self, msg: str, node: object) -> None:
        """A defect that is an error in strict mode and a warning otherwise."""
        if not self.located:
            raise _NeedLocation
        if self.strict:
            raise self.fail(msg + " (load with strict=False to accept it with a warning)", node)
        line, col = self.src.line_col(offset_of(node))
        text = f"{self.src.file}:{line}:{col}: {msg}"
        self.warnings.append(text)
        warnings.warn(text, PDDLLenientWarning, stacklevel=4)

    def note(self, msg: str, node: object) -> None:
        """A harmless defect VAL accepts: a warning with its location, in either mode."""
        if not self.located:
            raise _NeedLocation
        line, col = self.src.line_col(offset_of(node))
        text = f"{self.src.file}:{line}:{col}: {msg}"
        self.warnings.append(text)
        warnings.warn(text, PDDLLenientWarning, stacklevel=4)

    def sym(self, node: object, what: str) -> Sym:
        if not isinstance(node, str):
            raise self.fail(f"expected {what}, found a list", node)
        if "," in node:
            if node.endswith(",") and len(node) > 1 and "," not in node[:-1]:
                self.lenient(f"stray comma after {node[:-1]!r}", node)
                return Sym(node[:-1], node.offset)
            raise self.fail(f"{what} {node!r} holds a comma, which no name may hold", node)
        return node

    def lst(self, node: object, what: str) -> SList:
        if not isinstance(node, list):
            raise self.fail(f"expected {what} in parentheses, found {node!r}", node)
        return node

    def head(self, node: SList, what: str) -> str:
        if not node:
            raise self.fail(f"empty list where {what} was expected", node)
        return self.sym(node[0], what)

    def header(self, top: SList, kind: str) -> str:
        if len(top) < 2 or not isinstance(top[0], str) or top[0] != "define":
            raise self.fail("expected '(define (" + kind + " NAME) ...)'", top)
        h = self.lst(top[1], f"({kind} NAME)")
        if len(h) != 2 or self.head(h, kind) != kind:
            raise self.fail(f"expected ({kind} NAME) after define", h)
        return self.sym(h[1], f"{kind} name")

    def typed_list(self, items: list, what: str, allow_types: bool = True) -> list[tuple[Sym, str]]:
        out: list[tuple[Sym, str]] = []
        pending: list[Sym] = []
        i = 0
        while i < len(items):
            tok = self.sym(items[i], what)
            if tok == "-":
                if not allow_types:
                    raise self.fail("'-' type annotation is not allowed here", tok)
                if i + 1 >= len(items):
                    raise self.fail(f"'-' at the end of a {what} list: a type name must "
                                    "follow", tok)
                t = items[i + 1]
                if isinstance(t, list):
                    if not t or t[0] != "either":
                        raise self.fail("expected a type name after '-'", t)
                    if len(t) < 2:
                        raise self.fail("'(either)' names no type: give one or more", t)
                    members = tuple(str(self.sym(m, "type name")) for m in t[1:])
                    tname = Sym(either_type(members), offset_of(t, 0))
                else:
                    tname = self.sym(t, "type name")
                if not pending:
                    raise self.fail(f"type {tname!r} given to no {what}", tok)
                out.extend((p, tname) for p in pending)
                pending = []
                i += 2
                continue
            pending.append(tok)
            i += 1
        out.extend((p, OBJECT) for p in pending)
        return out

    def requirements(self, sec: SList) -> tuple[str, ...]:
        reqs = []
        for r in sec[1:]:
            r = self.sym(r, "requirement")
            if r not in SUPPORTED_REQUIREMENTS:
                raise self.fail(
                    f"requirement {r} is not supported (veriplan supports "
                    f"{', '.join(sorted(SUPPORTED_REQUIREMENTS))})", r,
                    requirement=str(r), cls=UnsupportedRequirementError)
            reqs.append(str(r))
        return tuple(reqs)

    # ----- domain ----------------------------------------------------------
    def domain(self) -> Domain:
        top = self._read()
        name = self.header(top, "domain")
        reqs: tuple[str, ...] = ()
        self.types: dict[str, str] = {}
        self.constants: dict[str, str] = {}
        self.predicates: dict[str, tuple[Param, ...]] = {}
        self.functions: dict[str, tuple[Param, ...]] = {}
        actions: list[SList] = []
        derived_nodes: list[SList] = []
        self.derived_preds: set[str] = set()
        self.action_prefs: list[Preference] = []  # preferences in preconditions
        self.pref_nodes: list[object] = []  # (the preconditions that hold them)
        constant_nodes: list[tuple[Sym, str]] = []
        constraint_nodes: list[SList] = []
        for sec in top[2:]:
            sec = self.lst(sec, "a domain section")
            key = self.head(sec, "a section keyword")
            if key == ":requirements":
                reqs = self.requirements(sec)
            elif key == ":types":
                self.domain_types(sec)
            elif key == ":constants":
                for n, t in self.typed_list(sec[1:], "constant"):
                    self.declare(self.constants, n, t, "constant")
                    constant_nodes.append((n, t))
            elif key == ":predicates":
                for p in sec[1:]:
                    p = self.lst(p, "a predicate declaration")
                    pname = self.head(p, "predicate name")
                    if pname in self.predicates:
                        raise self.fail(f"predicate {pname} is declared twice", p)
                    self.predicates[pname] = self.params(p[1:], declare=False)
            elif key == ":functions":
                self.domain_functions(sec)
            elif key in (":action", ":durative-action"):
                actions.append(sec)
            elif key == ":derived":
                derived_nodes.append(sec)
            elif key == ":constraints":
                constraint_nodes.append(sec)
            elif key in UNSUPPORTED_SECTIONS:
                req = UNSUPPORTED_SECTIONS[key]
                raise self.fail(f"{key} is not supported (requirement {req})", sec,
                                requirement=req, cls=UnsupportedRequirementError)
            else:
                raise self.fail(f"unknown domain section {key}", sec)
        for n, t in constant_nodes:
            self.check_type(t, n)
        if not self.located and not self.types:
            self.fast_names = self.constants
        for d in derived_nodes:  # (the heads first: an action may not change them)
            self.derived_preds.add(self.derived_head(d))
        rules = tuple(self.derived(d) for d in derived_nodes)
        strata = self.stratify(rules, derived_nodes)
        parsed = tuple(self.action(a) if a[0] == ":action" else self.durative_action(a)
                       for a in actions)
        names = [a.name for a in parsed]
        for a, node in zip(parsed, actions):
            if names.count(a.name) > 1:
                raise self.fail(f"action {a.name} is defined twice", node)
        if self.pref_nodes and any(isinstance(a, DurativeAction) for a in parsed):
            raise self.fail("a preference in the precondition of an action of a domain with "
                            "durative actions is not supported (goal preferences and "
                            ":constraints are)", self.pref_nodes[0],
                            requirement=":preferences", cls=UnsupportedRequirementError)
        hard: list[Constraint] = []
        prefs = list(self.action_prefs)
        for sec in constraint_nodes:
            h, p = self.pddl3.section(sec)
            hard += h
            prefs += p
        return Domain(str(name), reqs, self.types, self.constants, self.predicates,
                      self.functions, parsed, tuple(self.warnings), self.src.file,
                      tuple(sorted(self.undeclared)), rules, strata, tuple(hard),
                      tuple(prefs))

    # ----- derived predicates ---------------------------------------------------------
    def derived_head(self, sec: SList) -> str:
        if len(sec) != 3:
            raise self.fail("expected (:derived (PREDICATE ?x ...) FORMULA)", sec)
        head = self.lst(sec[1], "the derived predicate (PREDICATE ?x ...)")
        pred = self.head(head, "a predicate name")
        if pred not in self.predicates:
            raise self.fail(f"derived predicate {pred} is not declared in :predicates", head)
        return str(pred)

    def derived(self, sec: SList) -> DerivedRule:
        head = sec[1]
        pred = str(head[0])
        params = self.params(head[1:])
        sig = self.predicates[pred]
        if len(params) != len(sig):
            raise self.fail(f"derived predicate {pred} takes {len(sig)} argument(s), "
                            f"{len(params)} given", head)
        env = {p.name: p.type for p in params}
        body = self.formula(self.lst(sec[2], "a formula"), env)
        return DerivedRule(pred, params, body)

    def stratify(self, rules: tuple[DerivedRule, ...], nodes: list[SList]
                 ) -> tuple[tuple[str, ...], ...]:
        """The derived predicates in strata, lowest first: a rule's body uses
        predicates of its own stratum or below positively, of lower strata only
        under negation. A cycle through negation is an error."""
        if not rules:
            return ()
        preds = sorted({r.pred for r in rules})
        # edge (p, q, strict): p's rules read q (strict: under negation)
        needs: dict[str, list[tuple[str, bool]]] = {p: [] for p in preds}
        for r in rules:
            for q, negated in _derived_reads(r.body, self.derived_preds, False):
                needs[r.pred].append((q, negated))
        level = dict.fromkeys(preds, 0)
        for _ in range(len(preds) + 1):
            changed = False
            for p in preds:
                for q, strict in needs[p]:
                    want = level[q] + (1 if strict else 0)
                    if want > level[p]:
                        level[p] = want
                        changed = True
            if not changed:
                break
        else:
            bad = next(r for r in rules if level[r.pred] > len(preds))
            node = nodes[rules.index(bad)]
            raise self.fail(f"the derived predicates cannot be stratified: {bad.pred} "
                            "depends on itself through a negation (a cycle through 'not' "
                            "has no single meaning); rewrite the rules without it", node)
        top = max(level.values())
        return tuple(tuple(p for p in preds if level[p] == k) for k in range(top + 1)
                     if any(level[p] == k for p in preds))

    def declare(self, table: dict[str, str], name: Sym, t: str, what: str) -> None:
        if not is_name(name):
            raise self.fail(f"{what} {name!r} is not a name (a name does not start with '?')",
                            name)
        if name in table:
            raise self.fail(f"{what} {name} is declared twice", name)
        table[str(name)] = t

    def domain_types(self, sec: SList) -> None:
        for n, parent in self.typed_list(sec[1:], "type"):
            if n == OBJECT:
                if parent != OBJECT:
                    raise self.fail("type object is the root and cannot have a parent", n)
                self.lenient("type 'object' is built in and should not be declared", n)
                continue
            if n in self.types:
                old = self.types[n]
                if old == parent or OBJECT in (old, parent):
                    # (IPC 2006 storage: "area - object" and "area - surface") one
                    # meaning; VAL reads it without a word
                    kept = old if parent == OBJECT else parent
                    self.note(f"type {n} is declared twice (read as a {kept})", n)
                    if parent != OBJECT:
                        self.types[str(n)] = parent
                    continue
                raise self.fail(f"type {n} is declared twice, under {old} and under "
                                f"{parent}: a type has one parent (use (either ...) where "
                                "an argument may be of either type)", n)
            self.types[str(n)] = parent
        for n, parent in list(self.types.items()):
            if parent != OBJECT and parent not in self.types:
                self.types[parent] = OBJECT
            seen = {n}
            while parent != OBJECT:
                if parent in seen:
                    raise self.fail(f"type {n} is its own ancestor", sec)
                seen.add(parent)
                parent = self.types.get(parent, OBJECT)

    def domain_functions(self, sec: SList) -> None:
        items = sec[1:]
        i = 0
        while i < len(items):
            f = self.lst(items[i], "a function declaration")
            fname = self.head(f, "function name")
            if fname in self.functions:
                raise self.fail(f"function {fname} is declared twice", f)
            if fname in self.predicates:
                raise self.fail(f"{fname} is declared both as a predicate and as a "
                                "function: rename one", f)
            self.functions[str(fname)] = self.params(f[1:], declare=False)
            i += 1
            if i < len(items) and items[i] == "-":
                if i + 1 >= len(items) or items[i + 1] != "number":
                    what = items[i + 1] if i + 1 < len(items) else "nothing"
                    raise self.fail(f"function {fname} has type {what!s}: only numeric "
                                    "functions ('- number') are supported, not object "
                                    "fluents (PDDL 3.1)", items[i],
                                    requirement=":object-fluents",
                                    cls=UnsupportedRequirementError)
                i += 2

    def check_type(self, t: str, node: object) -> None:
        for m in either_members(t):
            if m != OBJECT and m not in self.types:
                raise self.fail(f"unknown type {m}: declare it in :types", node)

    def params(self, items: list, declare: bool = True) -> tuple[Param, ...]:
        out = []
        names = set()
        for n, t in self.typed_list(items, "parameter"):
            if not n.startswith("?") or len(n) == 1:
                raise self.fail(f"parameter {n!r} must be a variable like ?x", n)
            if n in names:
                # (IPC 2000 logistics, untyped) VAL warns "re-declaration of symbol" and
                # binds the name to its last position, as a substitution here does
                self.lenient(f"parameter {n} appears twice (its last position binds it, "
                             "as VAL reads it)", n)
            names.add(n)
            self.check_type(t, n)
            out.append(Param(str(n), t))
        return tuple(out)

    def action(self, sec: SList) -> ActionSchema:
        if len(sec) < 2:
            raise self.fail("action without a name", sec)
        name = self.sym(sec[1], "action name")
        fields: dict[str, object] = {}
        i = 2
        while i < len(sec):
            key = self.sym(sec[i], "':parameters', ':precondition' or ':effect'")
            if key == ":vars":  # PDDL 1.2 (IPC 1998): VAL 4 does not read it
                self.lenient(f"':vars' of action {name} is PDDL 1.2, outside PDDL 2.1 (read "
                             "as more parameters, after :parameters: a plan names them)", key)
            elif key not in (":parameters", ":precondition", ":effect"):
                raise self.fail(f"unknown action field {key} in action {name}", key)
            if i + 1 >= len(sec):
                raise self.fail(f"{key} of action {name} has no value", key)
            if key in fields:
                raise self.fail(f"{key} given twice in action {name}", key)
            fields[key] = sec[i + 1]
            i += 2
        params: tuple[Param, ...] = ()
        if ":parameters" in fields or ":vars" in fields:
            items = list(self.lst(fields.get(":parameters", SList()), "parameter list"))
            items += list(self.lst(fields.get(":vars", SList()), "variable list"))
            params = self.params(items)
        env = {p.name: p.type for p in params}
        pre: Formula = ast.TRUE
        if ":precondition" in fields:
            node, prefs = self.pddl3.split(self.lst(fields[":precondition"], "precondition"),
                                           env, PreferenceSite.PRECONDITION, str(name))
            self.action_prefs.extend(prefs)
            if prefs:
                self.pref_nodes.append(fields[":precondition"])
            pre = self.formula(node, env)
        effects: tuple[Effect, ...] = ()
        if ":effect" in fields:
            effects = self.effects(self.lst(fields[":effect"], "effect"), env)
        return ActionSchema(str(name), params, pre, effects)

    # ----- durative actions ---------------------------------------------------------
    def durative_action(self, sec: SList) -> DurativeAction:
        """``(:durative-action NAME :parameters (...) :duration C :condition F
        :effect E)`` (PDDL 2.1 level 3)."""
        if len(sec) < 2:
            raise self.fail("durative action without a name", sec)
        name = self.sym(sec[1], "action name")
        fields: dict[str, object] = {}
        i = 2
        allowed = (":parameters", ":duration", ":condition", ":effect")
        while i < len(sec):
            key = self.sym(sec[i], "':parameters', ':duration', ':condition' or ':effect'")
            if key not in allowed:
                raise self.fail(f"unknown field {key} in durative action {name} (a durative "
                                "action has :parameters, :duration, :condition, :effect)", key)
            if i + 1 >= len(sec):
                raise self.fail(f"{key} of durative action {name} has no value", key)
            if key in fields:
                raise self.fail(f"{key} given twice in durative action {name}", key)
            fields[key] = sec[i + 1]
            i += 2
        if ":duration" not in fields:
            raise self.fail(f"durative action {name} has no :duration (e.g. :duration "
                            "(= ?duration 5))", sec)
        params: tuple[Param, ...] = ()
        if ":parameters" in fields:
            params = self.params(list(self.lst(fields[":parameters"], "parameter list")))
        env = {p.name: p.type for p in params}
        if ":condition" in fields and _mentions(fields[":condition"], "preference"):
            raise self.fail(f"a preference in the condition of durative action {name} is not "
                            "supported (preferences of instantaneous actions, goals and "
                            ":constraints are)", fields[":condition"],
                            requirement=":preferences", cls=UnsupportedRequirementError)
        self.in_durative = True
        try:
            duration = self.duration(self.lst(fields[":duration"], "a duration constraint"),
                                     env, str(name))
            conds: dict[str, list[Formula]] = {"start": [], "all": [], "end": []}
            if ":condition" in fields:
                self.timed_conditions(self.lst(fields[":condition"], "a condition"), env,
                                      conds)
            effs: dict[str, list[Effect]] = {"start": [], "end": []}
            if ":effect" in fields:
                self.timed_effects(self.lst(fields[":effect"], "an effect"), env, effs)
        finally:
            self.in_durative = False

        def conj(parts: list[Formula]) -> Formula:
            return parts[0] if len(parts) == 1 else And(tuple(parts))
        return DurativeAction(str(name), params, NEVER, (), duration, conj(conds["start"]),
                              conj(conds["all"]), conj(conds["end"]),
                              _as_updates(tuple(effs["start"])),
                              _as_updates(tuple(effs["end"])))

    def duration(self, node: SList, env: dict[str, str], name: str
                 ) -> tuple[DurationConstraint, ...]:
        if not node:
            return ()
        key = self.head(node, "a duration constraint")
        if key == "and":
            out: list[DurationConstraint] = []
            for p in node[1:]:
                out.extend(self.duration(self.lst(p, "a duration constraint"), env, name))
            return tuple(out)
        if key == "at" and len(node) == 3 and node[1] in ("start", "end"):
            raise self.fail(f"a duration constraint at {node[1]} (durative action {name}) is "
                            "not supported: write (= ?duration e), (<= ?duration e) or "
                            "(>= ?duration e)", node, requirement=":duration-inequalities",
                            cls=UnsupportedRequirementError)
        if key not in ("=", "<=", ">=") or len(node) != 3 or node[1] != "?duration":
            raise self.fail(f"expected a duration constraint (= ?duration e), (<= ?duration e)"
                            f" or (>= ?duration e) in durative action {name}", node)
        return (DurationConstraint(COMPARISONS[key], self.expr(node[2], env)),)

    def timed_conditions(self, node: SList, env: dict[str, str],
                         out: dict[str, list[Formula]]) -> None:
        """``(and (at start f) (over all f) (at end f) ...)`` into ``out``."""
        if not node:
            return
        key = self.head(node, "a timed condition")
        if key == "and":
            for p in node[1:]:
                self.timed_conditions(self.lst(p, "a timed condition"), env, out)
            return
        when = self.time_spec(node, ("start", "end"), "condition")
        if when is None:
            raise self.fail("a durative action's condition must say when it holds: (at start "
                            "f), (over all f) or (at end f)", node)
        out[when].append(self.formula(self.lst(node[2], "a formula"), env))

    def time_spec(self, node: SList, ats: tuple[str, ...], what: str) -> str | None:
        """``start``, ``end`` or ``all`` for ``(at start x)``, ``(at end x)``, ``(over
        all x)``; None for anything else."""
        if len(node) == 3 and node[0] == "at" and isinstance(node[1], str) \
                and node[1] in ats:
            return str(node[1])
        if len(node) == 3 and node[0] == "over" and node[1] == "all":
            if what == "effect":
                raise self.fail("(over all ...) is a condition, not an effect: an effect "
                                "happens at start or at end", node)
            return "all"
        return None

    def timed_effects(self, node: SList, env: dict[str, str],
                      out: dict[str, list[Effect]]) -> None:
        """``(and (at start e) (at end e) ...)`` into ``out``; ``forall`` over timed
        effects splits by end; continuous effects (``#t``) are refused by name."""
        if not node:
            return
        key = self.head(node, "a timed effect")
        if key == "and":
            for p in node[1:]:
                self.timed_effects(self.lst(p, "a timed effect"), env, out)
            return
        if _mentions(node, "#t"):
            raise self.fail("continuous effects (#t, PDDL 2.1 level 4) are not supported",
                            node, requirement=":continuous-effects",
                            cls=UnsupportedRequirementError)
        when = self.time_spec(node, ("start", "end"), "effect")
        if when is not None:
            out[when].extend(self.effects(self.lst(node[2], "an effect"), env))
            return
        if key == "forall" and len(node) == 3:
            params = self.params(self.lst(node[1], "a parameter list"))
            inner = {**env, **{p.name: p.type for p in params}}
            split: dict[str, list[Effect]] = {"start": [], "end": []}
            self.timed_effects(self.lst(node[2], "an effect"), inner, split)
            for end, effs in split.items():
                if effs:
                    out[end].append(ForallEffect(params, _as_updates(tuple(effs))))
            return
        if key == "when":
            raise self.fail("a conditional effect of a durative action must sit inside its "
                            "time: (at end (when c e)) (a condition at one end and its effect "
                            "at the other is not supported)", node,
                            requirement=":conditional-effects", cls=UnsupportedRequirementError)
        raise self.fail("a durative action's effect must say when it happens: (at start e) "
                        "or (at end e)", node)

    # ----- formulas ------------------------------------------------------------
    def term_type(self, term: Sym, env: dict[str, str]) -> str | None:
        """The type of a term, or None for a leniently accepted undeclared constant."""
        if term.startswith("?"):
            if term not in env:
                raise self.fail(f"variable {term} is not bound here", term)
            return env[term]
        if self.dom is None:  # parsing a domain
            if term in self.constants:
                return self.constants[term]
            self.lenient(f"constant {term} is not declared in :constants", term)
            self.undeclared.add(str(term))
            return None
        if term in self.dom.constants:
            return self.dom.constants[term]
        if term in self.objects:
            return self.objects[term]
        raise self.fail(f"unknown object {term}: declare it in :objects", term)

    def atom(self, node: SList, env: dict[str, str]) -> Atom:
        known = self.fast_names
        if known is not None and node and node[0].__class__ is str:
            # Fast pass, untyped domain: a declared predicate, the right arity and
            # known names are all there is to check.
            sig = (self.dom.predicates if self.dom is not None else self.predicates).get(node[0])
            args = node[1:]
            if sig is not None and len(args) == len(sig):
                for a in args:
                    if a.__class__ is not str or (a not in known and a not in env):
                        break
                else:
                    return Atom(node[0], tuple(args))
        pred = self.head(node, "a predicate name")
        preds = self.dom.predicates if self.dom is not None else self.predicates
        if pred not in preds:
            raise self.fail(f"unknown predicate {pred}: declare it in :predicates", node)
        sig = preds[pred]
        args = [self.sym(a, "an argument") for a in node[1:]]
        if len(args) != len(sig):
            raise self.fail(
                f"predicate {pred} takes {len(sig)} argument(s), {len(args)} given", node)
        for a, p in zip(args, sig):
            t = self.term_type(a, env)
            if t is not None and p.type != t and not self.compatible(t, p.type):
                self.lenient(
                    f"argument {a} of type {t} does not fit parameter {p.name} - {p.type} "
                    f"of predicate {pred}", a)
        return Atom(str(pred), tuple(map(str, args)))

    def compatible(self, t: str, u: str) -> bool:
        return _subtype(self.types, t, u) or _subtype(self.types, u, t)

    def formula(self, node: SList, env: dict[str, str]) -> Formula:
        if not node:
            return ast.TRUE
        key = self.head(node, "a formula")
        if key == "and":
            return And(tuple(self.formula(self.lst(p, "a formula"), env) for p in node[1:]))
        if key == "or":
            return Or(tuple(self.formula(self.lst(p, "a formula"), env) for p in node[1:]))
        if key == "not":
            if len(node) != 2:
                raise self.fail("'not' takes exactly one formula", node)
            return Not(self.formula(self.lst(node[1], "a formula"), env))
        if key == "imply":
            if len(node) != 3:
                raise self.fail("'imply' takes exactly two formulas", node)
            return Imply(self.formula(self.lst(node[1], "a formula"), env),
                         self.formula(self.lst(node[2], "a formula"), env))
        if key in ("exists", "forall"):
            if len(node) != 3:
                raise self.fail(f"'{key}' takes a parameter list and one formula", node)
            params = self.params(self.lst(node[1], "a parameter list"))
            inner = {**env, **{p.name: p.type for p in params}}
            body = self.formula(self.lst(node[2], "a formula"), inner)
            return Exists(params, body) if key == "exists" else Forall(params, body)
        if key == "=":
            if len(node) != 3:
                raise self.fail("'=' takes exactly two terms", node)
            if self.numeric_side(node[1], env) or self.numeric_side(node[2], env):
                return Compare(CompareOp.EQ, self.expr(node[1], env), self.expr(node[2], env))
            a, b = (self.sym(x, "a term") for x in node[1:])
            self.term_type(a, env)
            self.term_type(b, env)
            return Equals(str(a), str(b))
        if key in COMPARISONS:
            if len(node) != 3:
                raise self.fail(f"'{key}' compares exactly two numeric expressions", node)
            return Compare(COMPARISONS[key], self.expr(node[1], env), self.expr(node[2], env))
        if key in NUMERIC_OPS:
            raise self.fail(f"'{key}' is arithmetic, not a condition: compare it, e.g. "
                            f"(>= ({key} ...) 0)", node)
        funcs = self.dom.functions if self.dom is not None else self.functions
        preds = self.dom.predicates if self.dom is not None else self.predicates
        if key in funcs and key not in preds:
            raise self.fail(f"{key} is a function, not a predicate: compare its value, e.g. "
                            f"(> ({key} ...) 0)", node)
        return self.atom(node, env)

    def numeric_side(self, node: object, env: dict[str, str]) -> bool:
        """True when a side of '=' is numeric: a list (a fluent or arithmetic) or a
        number that names no object."""
        if isinstance(node, list):
            return True
        if not isinstance(node, str) or node.startswith("?"):
            return False
        if node in self.constants or (self.dom is not None and node in self.objects):
            return False
        return _is_number(node)

    def expr(self, node: object, env: dict[str, str], *, metric: bool = False) -> NumExpr:
        """A numeric expression: a number, ``(f args)`` of a declared function, or
        arithmetic over expressions."""
        if isinstance(node, str):
            if node.startswith("?"):
                if node == "?duration":
                    if self.in_durative:
                        return DURATION
                    raise self.fail("?duration is the duration of a durative action: it "
                                    "has no value outside one", node)
                raise self.fail(f"variable {node} is an object, not a number: use a "
                                f"function of it, e.g. (f {node})", node)
            if not _is_number(node):
                raise self.fail(f"expected a number or a numeric expression, found "
                                f"{node!r}", node)
            return self.value(node)
        node = self.lst(node, "a numeric expression")
        head = self.head(node, "a numeric expression")
        if head in ARITHMETIC:
            args = tuple(self.expr(a, env, metric=metric) for a in node[1:])
            op = ARITHMETIC[head]
            if op is ArithOp.SUB and len(args) == 1:
                return Arith(ArithOp.NEG, args)
            binary = op in (ArithOp.SUB, ArithOp.DIV)
            if len(args) < 2 or (len(args) > 2 and binary):
                want = "two" if binary else "two or more"
                raise self.fail(f"'{head}' takes {want} expressions, {len(args)} given", node)
            return Arith(op, args)
        if metric and head == "total-time" and len(node) == 1:
            return TOTAL_TIME
        if metric and head == IS_VIOLATED:
            return self.pddl3.is_violated(node)
        return self.func_term(node, env)

    def func_term(self, node: SList, env: dict[str, str]) -> FuncTerm:
        fname = self.head(node, "a function name")
        funcs = self.dom.functions if self.dom is not None else self.functions
        if fname not in funcs:
            if fname == TOTAL_COST and self.dom is None:
                self.functions[TOTAL_COST] = ()
                funcs = self.functions
            elif fname in (self.dom.predicates if self.dom is not None else self.predicates):
                raise self.fail(f"{fname} is a predicate, not a function: it has no numeric "
                                "value", node)
            else:
                raise self.fail(f"unknown function {fname}: declare it in :functions", node)
        sig = funcs[fname]
        args = [self.sym(a, "an argument") for a in node[1:]]
        if len(args) != len(sig):
            raise self.fail(f"function {fname} takes {len(sig)} argument(s), {len(args)} "
                            "given", node)
        for a, p in zip(args, sig):
            t = self.term_type(a, env)
            if t is not None and p.type != t and not self.compatible(t, p.type):
                self.lenient(f"argument {a} of type {t} does not fit parameter {p.name} - "
                             f"{p.type} of function {fname}", a)
        return FuncTerm(str(fname), tuple(map(str, args)))

    def value(self, tok: Sym) -> int | float:
        """A numeric literal: finite, any sign."""
        try:
            v = float(tok)
        except ValueError:
            raise self.fail(f"expected a number, found {tok!r}", tok) from None
        if v != v or v in (float("inf"), float("-inf")):
            raise self.fail(f"expected a finite number, found {tok!r} (a number this large "
                            "overflows)", tok)
        return int(v) if v.is_integer() and abs(v) < 2 ** 53 else v

    # ----- effects -------------------------------------------------------------
    def effects(self, node: SList, env: dict[str, str]) -> tuple[Effect, ...]:
        if not node:
            return ()
        key = self.head(node, "an effect")
        if key == "and":
            out: list[Effect] = []
            for p in node[1:]:
                out.extend(self.effects(self.lst(p, "an effect"), env))
            return tuple(out)
        if key == "not":
            if len(node) != 2:
                raise self.fail("'not' takes exactly one atom", node)
            inner = self.lst(node[1], "an atom")
            return (Literal(self.atom(inner, env), False),)
        if key == "when":
            if len(node) != 3:
                raise self.fail("'when' takes a condition and an effect", node)
            cond = self.formula(self.lst(node[1], "a condition"), env)
            effs = _as_updates(self.effects(self.lst(node[2], "an effect"), env))
            return (When(cond, effs),)
        if key == "forall":
            if len(node) != 3:
                raise self.fail("'forall' takes a parameter list and an effect", node)
            params = self.params(self.lst(node[1], "a parameter list"))
            inner = {**env, **{p.name: p.type for p in params}}
            effs = _as_updates(self.effects(self.lst(node[2], "an effect"), inner))
            return (ForallEffect(params, effs),)
        if key in UPDATES:
            return (self.update(node, env),)
        return (self.effect_atom(node, env),)

    def effect_atom(self, node: SList, env: dict[str, str]) -> Literal:
        if node and isinstance(node[0], str) and node[0] in self.functions \
                and node[0] not in self.predicates:
            raise self.fail(f"{node[0]} is a function, not a predicate: change it with "
                            f"(assign ({node[0]} ...) value) or (increase ...)", node)
        atom = self.atom(node, env)
        if atom.pred in self.derived_preds:
            raise self.fail(f"{atom.pred} is a derived predicate: no action may change it "
                            "(its value follows from its :derived rule)", node)
        return Literal(atom, True)

    def update(self, node: SList, env: dict[str, str]) -> Increase | NumericEffect:
        key = str(node[0])
        if len(node) != 3:
            raise self.fail(f"'{key}' takes a function and a value", node)
        target = node[1]
        if (key == "increase" and isinstance(target, list) and len(target) == 1
                and target[0] == TOTAL_COST and (isinstance(node[2], str) or (
                    isinstance(node[2], list) and node[2] and node[2][0] in self.functions
                    and node[2][0] != TOTAL_COST))):
            return self.increase(node, env)  # a classical action cost
        funcs = self.dom.functions if self.dom is not None else self.functions
        if isinstance(target, str) and funcs.get(target) == ():
            # (IPC 2002 zenotravel-time: "(increase total-fuel-used ...)"), which VAL reads
            self.note(f"'{key}' of {target} without parentheses: read as ({target})", target)
            wrapped = SList([target])
            wrapped.offset = getattr(target, "offset", 0)
            target = wrapped
        if not isinstance(target, list):
            raise self.fail(f"'{key}' changes a function's value: expected (f args), found "
                            f"{target!r}", node)
        return NumericEffect(UPDATES[key], self.func_term(target, env), self.expr(node[2], env))

    def increase(self, node: SList, env: dict[str, str]) -> Increase:
        if TOTAL_COST not in self.functions:
            self.functions[TOTAL_COST] = ()
        value = node[2]
        if isinstance(value, str):
            if value.startswith("?"):
                raise self.fail(f"variable {value} is an object, not a number", value)
            return Increase(self.number(value))
        f = self.lst(value, "a cost")
        fname = self.head(f, "a function name")
        if fname not in self.functions or fname == TOTAL_COST:
            raise self.fail(f"cost {fname} is not a declared static function", f,
                            requirement=":numeric-fluents", cls=UnsupportedRequirementError)
        args = [self.sym(a, "an argument") for a in f[1:]]
        if len(args) != len(self.functions[fname]):
            raise self.fail(f"function {fname} takes {len(self.functions[fname])} argument(s)", f)
        for a in args:
            self.term_type(a, env)
        return Increase(FuncTerm(str(fname), tuple(map(str, args))))

    def number(self, tok: Sym) -> int | float:
        try:
            v = float(tok)
        except ValueError:
            raise self.fail(f"expected a number, found {tok!r}", tok) from None
        if v != v or v in (float("inf"), float("-inf")):
            raise self.fail(f"expected a finite number, found {tok!r}", tok)
        if v < 0:
            raise self.fail(f"action costs must be non-negative, found {tok}", tok)
        return int(v) if v.is_integer() else v

    # ----- problem ----------------------------------------------------------------
    def problem(self) -> Problem:
        top = self._read()
        name = self.header(top, "problem")
        domain_name = ""
        self.objects: dict[str, str] = {}
        init_node = goal_node = metric_node = None
        constraint_nodes: list[SList] = []
        self.types = self.dom.types
        for sec in top[2:]:
            sec = self.lst(sec, "a problem section")
            key = self.head(sec, "a section keyword")
            if key == ":domain":
                if len(sec) != 2:
                    raise self.fail("expected (:domain NAME)", sec)
                domain_name = str(self.sym(sec[1], "domain name"))
                if domain_name != self.dom.name:
                    raise self.fail(f"problem is for domain {domain_name}, but domain "
                                    f"{self.dom.name} was given", sec)
            elif key == ":requirements":
                self.requirements(sec)
            elif key == ":objects":
                for n, t in self.typed_list(sec[1:], "object"):
                    if n in self.dom.constants:
                        if self.dom.constants[n] == t or t == OBJECT:
                            # (IPC 2006 pathways): the same object twice; VAL reads it
                            self.note(f"object {n} repeats the domain constant {n} "
                                      "(read as the constant)", n)
                            continue
                        self.lenient(f"object {n} - {t} repeats the domain constant {n} "
                                     f"- {self.dom.constants[n]} with another type "
                                     "(read as the constant)", n)
                        continue
                    self.check_type(t, n)
                    self.declare(self.objects, n, t, "object")
            elif key == ":init":
                init_node = sec
            elif key == ":goal":
                if len(sec) != 2:
                    raise self.fail("expected (:goal FORMULA)", sec)
                goal_node = self.lst(sec[1], "goal formula")
            elif key == ":metric":
                metric_node = sec
            elif key == ":constraints":
                constraint_nodes.append(sec)
            else:
                raise self.fail(f"unknown problem section {key}", sec, requirement=None)
        if goal_node is None:
            raise self.fail("problem has no (:goal ...)", top)
        if not self.located and not self.types:
            self.fast_names = {**self.dom.constants, **self.objects}
        init, numeric = self.init(init_node)
        goal_node, prefs = self.pddl3.split(goal_node, {}, PreferenceSite.GOAL)
        goal = self.formula(goal_node, {})
        hard: list[Constraint] = []
        for sec in constraint_nodes:
            h, p = self.pddl3.section(sec)
            hard += h
            prefs += p
        metric = self.metric(metric_node) if metric_node is not None else None
        timed = tuple(sorted(self.timed, key=lambda x: x.time))
        return Problem(str(name), domain_name, dict(self.objects), init, numeric, goal,
                       metric, tuple(self.warnings), self.src.file, timed, tuple(hard),
                       tuple(prefs))

    def init(self, sec: SList | None) -> tuple[tuple[Atom, ...], dict[FuncTerm, float]]:
        atoms: list[Atom] = []
        numeric: dict[FuncTerm, float] = {}
        if sec is None:
            return (), numeric
        known = self.fast_names
        preds = self.dom.predicates
        new_atom = tuple.__new__
        for item in sec[1:]:
            if isinstance(item, list) and len(item) == 3 and item[0] == "at" and \
                    isinstance(item[1], str) and isinstance(item[2], list) and \
                    _is_number(item[1]):
                self.timed_literal(item)
                continue
            if known is not None and item.__class__ is list and item and \
                    item[0].__class__ is str:
                # Fast pass, untyped domain: a declared predicate of the right arity
                # over declared names is all there is to check (as in atom()).
                sig = preds.get(item[0])
                if sig is not None and len(item) == len(sig) + 1:
                    for a in item[1:]:
                        if a.__class__ is not str or a not in known:
                            break
                    else:
                        atoms.append(new_atom(Atom, (item[0], tuple(item[1:]))))
                        continue
                if item[0] != "=" and item[0] != "not":
                    atoms.append(self.atom(item, {}))
                    continue
            item = self.lst(item, "an initial fact")
            if item and item[0] == "=":
                if len(item) != 3 or not isinstance(item[1], list):
                    raise self.fail("expected (= (function args) number)", item)
                f = item[1]
                fname = self.head(f, "a function name")
                if fname not in self.dom.functions and fname in self.dom.predicates:
                    raise self.fail(f"{fname} is a predicate, not a function: it has no "
                                    "value to set", f)
                if fname not in self.dom.functions and fname != TOTAL_COST:
                    raise self.fail(f"unknown function {fname}: declare it in :functions", f)
                term = (self.func_term(f, {}) if fname in self.dom.functions
                        else FuncTerm(TOTAL_COST))
                if isinstance(item[2], list):
                    raise self.fail(f"the initial value of {term} must be a number, not an "
                                    "expression", item[2])
                v = self.value(self.sym(item[2], "a number"))
                if term in numeric and numeric[term] != v:
                    raise self.fail(f"{term} is given two initial values, {numeric[term]} "
                                    f"and {v}", item)
                numeric[term] = v
                continue
            if item and item[0] == "not":
                continue  # closed world: a negative initial fact says nothing new
            a = self.atom(item, {})
            atoms.append(a)
        return tuple(atoms), numeric

    def timed_literal(self, item: SList) -> None:
        """``(at t (p ...))`` or ``(at t (not (p ...)))`` of :init (PDDL 2.2)."""
        if not self.dom.temporal:
            raise self.fail("timed initial literals need a domain with durative actions "
                            f"(domain {self.dom.name} has none)", item,
                            requirement=":timed-initial-literals",
                            cls=UnsupportedRequirementError)
        t = self.value(self.sym(item[1], "a time"))
        if t < 0:
            raise self.fail(f"a timed initial literal at a negative time ({item[1]})", item)
        lit = self.lst(item[2], "a literal")
        if lit and lit[0] == "=":
            raise self.fail("a timed initial literal sets a fact, not a number: (at t (p ...))"
                            " or (at t (not (p ...)))", lit, requirement=":timed-initial-literals",
                            cls=UnsupportedRequirementError)
        if lit and lit[0] == "not":
            if len(lit) != 2:
                raise self.fail("'not' takes exactly one atom", lit)
            self.timed.append(TimedLiteral(float(t), Literal(
                self.atom(self.lst(lit[1], "an atom"), {}), False)))
        else:
            self.timed.append(TimedLiteral(float(t), Literal(self.atom(lit, {}), True)))

    def metric(self, sec: SList) -> Metric:
        if len(sec) != 3 or sec[1] not in ("minimize", "maximize"):
            raise self.fail("expected (:metric minimize|maximize EXPRESSION)", sec)
        if (isinstance(sec[2], list) and len(sec[2]) == 1 and sec[2][0] == TOTAL_COST
                and TOTAL_COST not in self.dom.functions):
            expr: NumExpr = FuncTerm(TOTAL_COST)  # classical costs declare it or not
        else:
            expr = self.expr(sec[2], {}, metric=True)
        return Metric(MetricDirection(str(sec[1])), expr)


def _mentions(node: object, word: str) -> bool:
    if isinstance(node, list):
        return any(_mentions(x, word) for x in node)
    return node == word


def _is_number(tok: str) -> bool:
    try:
        float(tok)
    except ValueError:
        return False
    return True


def _as_updates(effects: tuple[Effect, ...]) -> tuple[Effect, ...]:
    """A cost inside 'when' or 'forall' as the numeric update it is (it is no
    constant cost of the action)."""
    return tuple(NumericEffect(UpdateOp.INCREASE, FuncTerm(TOTAL_COST), e.value)
                 if isinstance(e, Increase) else e for e in effects)


def _derived_reads(f: Formula, derived: set[str], negated: bool):
    """(predicate, under negation) for each derived predicate ``f`` reads."""
    if isinstance(f, Atom):
        if f.pred in derived:
            yield f.pred, negated
    elif isinstance(f, Not):
        yield from _derived_reads(f.arg, derived, not negated)
    elif isinstance(f, And | Or):
        for p in f.parts:
            yield from _derived_reads(p, derived, negated)
    elif isinstance(f, Imply):
        yield from _derived_reads(f.lhs, derived, not negated)
        yield from _derived_reads(f.rhs, derived, negated)
    elif isinstance(f, Exists | Forall):
        yield from _derived_reads(f.body, derived, negated)


def _subtype(types: dict[str, str], sub: str, sup: str) -> bool:
    if sup.startswith("(either "):
        return any(_subtype(types, sub, m) for m in either_members(sup))
    if sub.startswith("(either "):
        return all(_subtype(types, m, sup) for m in either_members(sub))
    if sup == OBJECT:
        return True
    seen = set()
    while sub != OBJECT and sub not in seen:
        if sub == sup:
            return True
        seen.add(sub)
        sub = types.get(sub, OBJECT)
    return False


# ----- the plain problem ---------------------------------------------------------------
# Most problem files are plain: (define (problem N) (:domain D) [(:requirements ...)]
# [(:objects ...)] (:init (p a ...) ...) (:goal G)), in that order, with no numeric
# facts, no metric and no comma (a comma is in no name). _plain_problem reads such a
# text with a few regular expressions instead of a tree walk, and checks what the
# parser checks; it gives up (None) on anything else, and on anything the parser
# would refuse or warn about, and the parser then reads the text. Tokens are what
# read_fast makes of the text: runs of characters other than white space
# (str.isspace, which is also what \s matches in a str pattern) and parentheses.
# The classes leave out the control characters read() refuses (_BAD_CHAR): a text
# holding one does not match, as read_fast would not read it.
_WS = r"[^\S\x0b\x0c\x1c-\x1f]"  # white space
_NM = r"[^\s()\x00-\x08\x0e-\x1b\x7f]"  # a character of a name
_IN = r"[^()\x00-\x08\x0b\x0c\x0e-\x1f\x7f]"  # any inside a list but a list
_PLAIN = re.compile(
    rf"{_WS}*\({_WS}*define{_WS}*\({_WS}*problem{_WS}+({_NM}+){_WS}*\)"
    rf"{_WS}*\({_WS}*:domain{_WS}+({_NM}+){_WS}*\)"
    rf"(?:{_WS}*\({_WS}*:requirements(?=[\s)])({_IN}*)\))?"
    rf"(?:{_WS}*\({_WS}*:objects(?=[\s)])({_IN}*)\))?"
    rf"{_WS}*\({_WS}*:init(?=[\s()])((?:{_WS}*+\({_IN}*+\))*+){_WS}*\)"
    rf"{_WS}*\({_WS}*:goal{_WS}*(\((?:{_IN}++|\((?:{_IN}++|\({_IN}*+\))*+\))*+\)){_WS}*\)"
    rf"{_WS}*\){_WS}*")
_FLAT_LIST = re.compile(r"\(([^()]*)\)")  # the text inside a list without sublists
_FLAT_AND = re.compile(r"\(\s*and((?:\s*+\([^()]*+\))*+)\s*\)")  # (and (p a) ...)


def _plain_problem(text: str, dom: Domain, file: str) -> Problem | None:
    """The problem of a plain text (see above), equal to what the parser makes of
    it, or None (the parser reads the text then)."""
    if ";" in text:
        if _BAD_CHAR.search(text) is not None:  # in a comment too
            return None
        text = _COMMENT.sub(" ", text)
    if "," in text:
        return None
    m = _PLAIN.fullmatch(text.lower())
    if m is None:
        return None
    name, domain_name, reqs, objs, init_text, goal_text = m.groups()
    if domain_name != dom.name:
        return None
    if reqs is not None:
        for r in reqs.split():
            if r not in SUPPORTED_REQUIREMENTS:
                return None
    types = dom.types
    constants = dom.constants
    objects: dict[str, str] = {}
    if objs is not None:
        words = objs.split()
        if "-" in words:
            typed = _typed_objects(words, types)
            if typed is None:
                return None
        else:
            typed = [(w, OBJECT) for w in words]
        for n, t in typed:
            # is_name(n), for a token of the text (no space, parenthesis or comma)
            if n in constants or n in objects or n[0] == "?":
                return None
            objects[n] = t
    init = _plain_atoms(_FLAT_LIST.findall(init_text), dom, objects)
    if init is None:
        return None
    goal: Formula | None
    flat = _FLAT_AND.fullmatch(goal_text)
    if flat is not None:
        parts = _plain_atoms(_FLAT_LIST.findall(flat.group(1)), dom, objects)
        if parts is None:
            return None
        goal = _new(And)
        _set_parts(goal, tuple(parts))
    else:
        goal = _general_goal(goal_text, dom, file, objects)
        if goal is None:
            return None
    # Problem(name, domain_name, objects, tuple(init), {}, goal, None, (), file, ()): the
    # same object, its fields set at once (the frozen dataclass sets them one by one)
    problem = _new(Problem)
    _set(problem, "__dict__", {
        "name": name, "domain_name": domain_name, "objects": objects, "init": tuple(init),
        "numeric_init": {}, "goal": goal, "metric": None, "warnings": (), "file": file,
        "timed_literals": (), "constraints": (), "preferences": ()})
    return problem


_new = object.__new__
_set = object.__setattr__
_set_parts = And.parts.__set__  # type: ignore[attr-defined]


def _plain_atoms(items: list[str], dom: Domain, objects: dict[str, str]) -> list[Atom] | None:
    """The atoms of flat lists (their texts, ``on a b``) of a problem with
    ``objects``, checked as _Parser.atom checks an atom of the problem (a declared
    predicate with its number of arguments, over declared names, of fitting types);
    None for a list that is no such atom (or whose head is a keyword of formulas)."""
    memo = _atom_memo(dom)
    preds = dom.predicates
    types = dom.types
    constants = dom.constants
    known = None if types else {*constants, *objects}
    out = []
    for item in items:
        a = memo.get(item)
        if a is None:  # an atom's text met first: the predicate and its arity
            words = item.split()
            if not words or words[0] in _GOAL_KEYWORDS:
                return None  # "=" (a numeric fact), "not", ...: the parser's to read
            sig = preds.get(words[0])
            if sig is None or len(words) != len(sig) + 1:
                return None
            a = memo[item] = tuple.__new__(Atom, (words[0], tuple(words[1:])))
        if known is not None:
            if not known.issuperset(a.args):
                return None
        else:
            for x, p in zip(a.args, preds[a.pred]):  # as _Parser.atom: fitting types
                t = constants.get(x) or objects.get(x)
                if t is None or (p.type != t and not _subtype(types, t, p.type)
                                 and not _subtype(types, p.type, t)):
                    return None
        out.append(a)
    return out


_ATOMS: dict[int, tuple[Domain, dict[str, Atom]]] = {}


def _atom_memo(dom: Domain) -> dict[str, Atom]:
    """The atoms of ``dom``'s problems by their text (``on a b``: a declared predicate
    and its number of arguments, not a keyword), kept while ``dom`` is: problems of
    one domain share most of their atoms."""
    hit = _ATOMS.get(id(dom))
    if hit is not None and hit[0] is dom:
        if len(hit[1]) > 1 << 16:
            hit[1].clear()
        return hit[1]
    if len(_ATOMS) >= 64:
        _ATOMS.clear()
    memo: dict[str, Atom] = {}
    _ATOMS[id(dom)] = (dom, memo)
    return memo


# Heads a goal part may have that are not atoms (the parser reads those parts).
_GOAL_KEYWORDS = frozenset({"and", "or", "not", "imply", "exists", "forall", "=",
                            *NUMERIC_OPS})


def _typed_objects(words: list[str], types: dict[str, str]) -> list[tuple[str, str]] | None:
    """``a b - t c`` as (object, type) pairs, as _Parser.typed_list reads it, with
    each type declared; None where the parser would refuse the list."""
    out: list[tuple[str, str]] = []
    pending: list[str] = []
    i = 0
    while i < len(words):
        w = words[i]
        if w == "-":
            if i + 1 >= len(words) or not pending:
                return None
            t = words[i + 1]
            if t != OBJECT and t not in types:
                return None
            out.extend((p, t) for p in pending)
            pending = []
            i += 2
            continue
        pending.append(w)
        i += 1
    out.extend((p, OBJECT) for p in pending)
    return out


def _general_goal(goal_text: str, dom: Domain, file: str,
                  objects: dict[str, str]) -> Formula | None:
    """A goal other than a conjunction of atoms, read by the parser's own fast pass;
    None where that pass needs the located one."""
    tree = read_fast(goal_text)
    if tree is None:
        return None
    p = _Parser(Source(goal_text, file), True, dom, located=False)
    p.objects = objects
    p.types = dom.types
    if not dom.types:
        p.fast_names = {**dom.constants, **objects}
    try:
        return p.formula(tree, {})
    except _NeedLocation:
        return None
