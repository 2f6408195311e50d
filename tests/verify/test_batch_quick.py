"""``validate --batch`` reads and judges a clean plan in one pass (``_Judge._quick``:
no steps, parsed plan or result built); its records are exactly those of the general
path (reader, validator, record) on every line, whatever the domain's features, and
it leaves every other plan to the general path."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
import yaml

import veriplan.verify.batch as batch
from tests.conftest import EXAMPLES
from veriplan.pddl.task import clear_domain_cache
from veriplan.verify.batch import batch_lines

FEATURES = Path(__file__).parent / "features"

pytestmark = pytest.mark.usefixtures("fresh_batch_caches")


def records(lines: list[str], quick: bool, monkeypatch, **kw) -> tuple[list[str], int]:
    """The records of a fresh run, with or without the one-pass path; and how many
    lines that path judged."""
    batch.clear_caches()
    clear_domain_cache()
    real = batch._Judge._quick
    taken = [0]

    def counted(self, line, ident, item):
        out = real(self, line, ident, item) if quick else None
        taken[0] += out is not None
        return out

    monkeypatch.setattr(batch._Judge, "_quick", counted)
    out = [text for _v, text in batch_lines(lines, **kw)]
    monkeypatch.setattr(batch._Judge, "_quick", real)
    return out, taken[0]


def steps_of(domain_text: str, problem_text: str) -> tuple[list[str], list[str]]:
    """The action names and objects of a task (for random steps)."""
    from veriplan.pddl.parser import parse_domain, parse_problem

    d = parse_domain(domain_text, strict=False)
    p = parse_problem(problem_text, d, strict=False)
    return [f"{a.name}/{len(a.params)}" for a in d.actions], [*d.constants, *p.objects]


def dress(rng: random.Random, steps: list[str]) -> str:
    """A plan text: mostly clean lines, sometimes in another dress the reader also
    reads (or not)."""
    lines = list(steps)
    r = rng.random()
    if r < 0.08:
        lines = [s.upper() for s in lines]
    elif r < 0.14:
        lines = [f"{k}. {s}" for k, s in enumerate(lines, 1)]
    elif r < 0.18:
        lines = [s.replace(" ", "\t ") for s in lines]
    elif r < 0.22:
        lines.insert(rng.randrange(len(lines) + 1), "")
    elif r < 0.25:
        lines.append(";; a comment")
    elif r < 0.28:
        lines = ["[PLAN]", *lines, "[PLAN END]"]
    elif r < 0.31:
        lines = [s.replace("(", "( ").replace(")", " )") for s in lines]
    sep = "\r\n" if rng.random() < 0.05 else "\n"
    return sep.join(lines) + (sep if rng.random() < 0.3 else "")


def random_plans(rng: random.Random, domain_text: str, problem_text: str,
                 n: int) -> list[str]:
    actions, objects = steps_of(domain_text, problem_text)
    out = []
    for _ in range(n):
        steps = []
        for _ in range(rng.randrange(0, 6)):
            name, arity = rng.choice(actions).rsplit("/", 1)
            k = int(arity) + (rng.random() < 0.05) - (rng.random() < 0.05)
            args = [rng.choice(objects) if rng.random() < 0.95 else "nowhere"
                    for _ in range(max(k, 0))]
            if rng.random() < 0.03:
                name = "fly"
            steps.append(f"({' '.join([name, *args])})")
        out.append(dress(rng, steps))
    return out


def feature_lines(tmp_path: Path, rng: random.Random) -> list[str]:
    lines = []
    for path in sorted(FEATURES.glob("*.yaml")):
        spec = yaml.safe_load(path.read_text())
        if "domain" not in spec or path.stem == "unsupported":
            continue
        dom = tmp_path / f"{path.stem}-domain.pddl"
        prob = tmp_path / f"{path.stem}-problem.pddl"
        dom.write_text(spec["domain"])
        prob.write_text(spec["problem"])
        plans = ["\n".join(p["plan"]) for p in spec.get("plans", []) if "plan" in p]
        plans += random_plans(rng, spec["domain"], spec["problem"], 60)
        for k, plan in enumerate(plans):
            lines.append(json.dumps({"id": f"{path.stem}-{k}", "domain": str(dom),
                                     "problem": str(prob), "plan": plan}) + "\n")
    return lines


def test_the_one_pass_records_are_the_general_ones_in_every_feature(tmp_path, monkeypatch):
    rng = random.Random(36)
    lines = feature_lines(tmp_path, rng)
    rng.shuffle(lines)
    general, _ = records(lines, False, monkeypatch)
    quick, taken = records(lines, True, monkeypatch)
    assert quick == general
    # the one-pass path judged most of those it serves (clean plans on classical
    # tasks: no numeric fluents, no derived predicates)
    from veriplan.pddl.task import load_task

    served = 0
    for line in lines:
        item = json.loads(line)
        task = load_task(item["domain"], item["problem"])
        clean = all(line.strip().startswith("(") for line in item["plan"].splitlines()
                    if line.strip())
        served += clean and not task.numeric and task.axioms is None
    assert served > 200 and taken > served // 2


def test_the_one_pass_records_on_blocksworld_answers(monkeypatch):
    dom = str(EXAMPLES / "blocks-domain.pddl")
    prob = str(EXAMPLES / "blocks-problem.pddl")
    text = (EXAMPLES / "blocks-plan.txt").read_text()
    rng = random.Random(7)
    plans = [text, text.upper(), "", "\n\n", "(pick-up a)", text.replace("\n", "\n\n"),
             text.replace("\n", "\r\n"), text.replace("\n", "\r"), text.rstrip() + "\r",
             "\r", "\r\n", " \t\n\t(unstack c a) \n \r\n", "(unstack c a)\n[PLAN END]",
             "plan:\n(unstack c a)", "(unstack c a) ; the plan\n", "(unstack c a)\n__",
             "(unstack c a)\n(put-down c)\n(unstack c a)", "(UNSTACK C A)\n(Put-Down c)",
             "(unstack  c\ta)", "(unstack c a)(put-down c)", "((unstack c a))"]
    plans += random_plans(rng, Path(dom).read_text(), Path(prob).read_text(), 300)
    lines = [json.dumps({"id": k, "domain": dom, "problem": prob, "plan": p}) + "\n"
             for k, p in enumerate(plans)]
    general, _ = records(lines, False, monkeypatch)
    quick, taken = records(lines, True, monkeypatch)
    assert quick == general and taken > 150
    # --max-bytes below a plan's size: the general path's too-large record
    small, _ = records(lines[:20], True, monkeypatch, max_bytes=60)
    assert small == records(lines[:20], False, monkeypatch, max_bytes=60)[0]


def test_the_one_pass_records_on_recorded_planbench_answers(planbench, monkeypatch):
    lines = []
    with (planbench / "answers-dev.jsonl").open() as f:
        for k, raw in enumerate(f):
            if k >= 400:
                break
            rec = json.loads(raw)
            for key in ("planbench_extracted", "raw"):
                lines.append(json.dumps({
                    "id": f"{k}-{key}", "domain": str(planbench / rec["domain_file"]),
                    "problem": str(planbench / rec["problem"]),
                    "plan": rec.get(key) or ""}) + "\n")
    general, _ = records(lines, False, monkeypatch)
    quick, taken = records(lines, True, monkeypatch)
    assert quick == general and taken > 300


def test_a_step_text_of_one_problem_is_checked_against_another_problems_objects(
        tmp_path, monkeypatch):
    """The memo of an untyped domain's steps is shared by its problems: a step whose
    objects one problem has and the next lacks is not read in the next."""
    dom = EXAMPLES / "blocks-domain.pddl"
    prob = (EXAMPLES / "blocks-problem.pddl").read_text()
    other = tmp_path / "other.pddl"
    other.write_text(prob.replace(" c ", " z ").replace(" c)", " z)"))
    assert other.read_text() != prob
    lines = [json.dumps({"id": k, "domain": str(dom), "problem": p, "plan": "(unstack c a)"})
             + "\n" for k, p in enumerate([str(EXAMPLES / "blocks-problem.pddl"),
                                           str(other)] * 2)]
    general, _ = records(lines, False, monkeypatch)
    quick, _ = records(lines, True, monkeypatch)
    assert quick == general
    assert [json.loads(r)["failure"] for r in quick][1] == "unknown-object"


def test_the_one_pass_records_on_the_ipc_numeric_plans(data_dir, monkeypatch):
    """Planner-made numeric plans and their mutants, given as plan files (as VAL is
    given them): the compiled steps judge them with the general path's records,
    the first step they cannot judge resumed by the general validator; and the
    one-pass path serves every one (the mutants with a step of a wrong type, which
    VAL calls bad plans: the validator resumed at that step tells why)."""
    from tests.conftest import REPO

    rows = [json.loads(line) for line in (REPO / "tests" / "data" / "ipc_plans"
                                          / "val_verdicts.jsonl").read_text().splitlines()]
    numeric = [r for r in rows if "derived" not in r["variant"]]
    assert len(numeric) > 400
    ipc = data_dir / "ipc-dev"
    lines = [json.dumps({"id": k, "domain": str(ipc / r["domain"]),
                         "problem": str(ipc / r["problem"]),
                         "plan_file": str(REPO / r["plan"])}) + "\n"
             for k, r in enumerate(numeric)]
    general, _ = records(lines, False, monkeypatch, strict=False)
    quick, taken = records(lines, True, monkeypatch, strict=False)
    assert quick == general
    assert taken == len(numeric) and any(r["outcome"] == "bad-plan" for r in numeric)
    assert {json.loads(text)["failure"] for text, r in zip(quick, numeric)
            if r["outcome"] == "bad-plan"} == {"wrong-type"}
    valid = sum(json.loads(text)["valid"] for text in quick)
    assert 0 < valid < len(lines)


def test_a_plan_file_item_reports_what_the_general_path_reports_first(tmp_path, monkeypatch):
    """A plan file that is missing, too large, or beside a broken problem: the same
    record with and without the one-pass path (the plan file is read before the
    task, as the general path reads it)."""
    dom = str(EXAMPLES / "blocks-domain.pddl")
    prob = str(EXAMPLES / "blocks-problem.pddl")
    broken = tmp_path / "broken.pddl"
    broken.write_text("(define (problem p) (:domain blocksworld) (:objects")
    big = tmp_path / "big.txt"
    big.write_text("(unstack c a)\n" * 6000)
    plan = str(EXAMPLES / "blocks-plan.txt")
    items = [{"domain": dom, "problem": prob, "plan_file": plan},
             {"domain": dom, "problem": prob, "plan_file": str(tmp_path / "nowhere.txt")},
             {"domain": dom, "problem": str(broken), "plan_file": str(tmp_path / "none")},
             {"domain": dom, "problem": str(broken), "plan_file": plan},
             {"domain": dom, "problem": prob, "plan_file": str(big)},
             {"domain": dom, "problem": prob, "plan_file": plan, "plan": "(pick-up a)"},
             {"domain": dom, "problem": prob, "plan_file": str(tmp_path)}]
    lines = [json.dumps(i) + "\n" for i in items]
    general, _ = records(lines, False, monkeypatch)
    quick, taken = records(lines, True, monkeypatch)
    assert quick == general and taken >= 1
    small, _ = records(lines, True, monkeypatch, max_bytes=60)
    assert small == records(lines, False, monkeypatch, max_bytes=60)[0]


_PLANE_DOMAIN = """(define (domain {name})
  (:requirements :strips :typing :numeric-fluents)
  (:types plane city)
  (:predicates (at ?p - plane ?c - city))
  (:functions (fuel ?p - plane) - number)
  (:action fly :parameters (?p - plane ?a ?b - city)
    :precondition (and (at ?p ?a) (>= (fuel ?p) {need}))
    :effect (and (not (at ?p ?a)) (at ?p ?b) (decrease (fuel ?p) {need}))))
"""
_PLANE_PROBLEM = """(define (problem {name}) (:domain {domain})
  (:objects plane1 - plane c1 c2 c3 - city)
  (:init (at plane1 c1) (= (fuel plane1) {fuel}))
  (:goal (at plane1 c3)))
"""


def test_tasks_of_a_domain_share_compiled_code_and_other_bodies_do_not(tmp_path,
                                                                        monkeypatch):
    """A schema's compiled function is made once for every task whose schema reads
    the same (the problems of a domain); two domains whose schemas share a name (and
    the domain's name) but not the body each get their own, and their own verdicts."""
    from veriplan.pddl.numeric_code import compiled_step
    from veriplan.pddl.task import load_task

    files = {}
    for dom, need in (("a", 2), ("b", 3)):
        d = tmp_path / f"{dom}-domain.pddl"
        d.write_text(_PLANE_DOMAIN.format(name="planes", need=need))
        for prob, fuel in (("p1", 4), ("p2", 5)):
            p = tmp_path / f"{dom}-{prob}.pddl"
            p.write_text(_PLANE_PROBLEM.format(name=prob, domain="planes", fuel=fuel))
            files[dom, prob] = (str(d), str(p))
    from veriplan.core.plan import Step

    step = Step("fly", ("plane1", "c1", "c2"))
    fns = {k: compiled_step(load_task(*f), step).fn for k, f in files.items()}
    assert fns["a", "p1"] is fns["a", "p2"] and fns["b", "p1"] is fns["b", "p2"]
    assert fns["a", "p1"] is not fns["b", "p1"]
    # fuel 4 (p1) and 5 (p2), two flights of 2 (a) or 3 (b): valid for a, step 2 for b
    plan = "(fly plane1 c1 c2)\n(fly plane1 c2 c3)\n"
    lines = [json.dumps({"id": f"{k[0]}{k[1]}", "domain": f[0], "problem": f[1],
                         "plan": plan}) + "\n" for k, f in files.items()] * 2
    general, _ = records(lines, False, monkeypatch)
    quick, taken = records(lines, True, monkeypatch)
    assert quick == general and taken == len(lines)
    got = [(json.loads(r)["valid"], json.loads(r)["failed_step"]) for r in quick[:4]]
    assert got == [(True, None), (True, None), (False, 2), (False, 2)]


def test_plan_inside_a_name_is_judged_without_the_plan_readers(tmp_path, monkeypatch):
    """"plan" inside an object's name ("plane1") is no plan marker: the one-pass path
    judges such a plan without the full reader's test of its lines; "plan" as a word
    or "__" still takes that test (the records are the general path's)."""
    import veriplan.planio.pddl_plan as pddl_plan
    import veriplan.verify.quick as quick_mod

    for text in ["plan", "plan:", "a plan", "(x plan)", "plane1", "airplane", "1plan",
                 "_plan", "plan_", "plan-a", "-plan", "planplan", "plan2", "the\nplan",
                 "(fly plane1 c1)\n[plan end]", "ßplan", "plané", "", "pla n"]:
        assert quick_mod._plan_word(text) == (pddl_plan._PLAN_WORD.search(text)
                                              is not None), text
    d = tmp_path / "domain.pddl"
    d.write_text(_PLANE_DOMAIN.format(name="planes", need=1))
    p = tmp_path / "problem.pddl"
    p.write_text(_PLANE_PROBLEM.format(name="p", domain="planes", fuel=3))
    plans = ["(fly plane1 c1 c2)\n(fly plane1 c2 c3)", "(FLY PLANE1 C1 C3)\n",
             "(fly plane1 c1 c3)\n(fly plane1 c3 c1)\n"]
    lines = [json.dumps({"id": k, "domain": str(d), "problem": str(p), "plan": t}) + "\n"
             for k, t in enumerate(plans)]
    general, _ = records(lines, False, monkeypatch)
    calls = []
    real = pddl_plan.clean_text
    monkeypatch.setattr(pddl_plan, "clean_text", lambda text: calls.append(text) or real(text))
    quick, taken = records(lines, True, monkeypatch)
    assert quick == general and taken == len(plans) and calls == []
    marked = [json.dumps({"id": 9, "domain": str(d), "problem": str(p),
                          "plan": "plan:\n(fly plane1 c1 c3)"}) + "\n"]
    assert records(marked, True, monkeypatch)[0] == records(marked, False, monkeypatch)[0]
    assert calls


def test_the_one_pass_plan_file_reader_reads_what_the_general_reader_reads(tmp_path):
    """A plan file the one-pass path reads gives the general reader's text; any
    other (missing, a directory, a pipe, too large, not UTF-8) it leaves to the
    general path (None), which says why."""
    import os

    from veriplan.errors import InputFileError
    from veriplan.pddl.inputs import read_text
    from veriplan.verify.quick import read_quick

    texts = {"plain": b"(fly plane1 c1 c2)\n", "bom": b"\xef\xbb\xbf(fly plane1 c1 c2)\r\n",
             "empty": b"", "latin1": b"(fly pl\xe9ne c1 c2)\n", "big": b"(a)\n" * 100}
    for name, data in texts.items():
        (tmp_path / name).write_bytes(data)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for name in [*texts, "fifo", "nowhere", "."]:
        path = str(tmp_path / name)
        try:
            want = read_text(path, what="plan file", max_bytes=100)
        except InputFileError:
            want = None
        assert read_quick(path, 100) == want, name
    assert read_quick(str(tmp_path / "plain"), 1 << 16) == "(fly plane1 c1 c2)\n"
    assert read_quick(str(tmp_path / "bom"), 1 << 16) == "(fly plane1 c1 c2)\r\n"
    assert read_quick(str(tmp_path / "big"), 399) is None
    assert read_quick("bad\x00path", 100) is None
