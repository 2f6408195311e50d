"""The controlled planner/decomposer for the closed loop, DRIP and direct
generation (issue 33): its errors happen at the rate it is set to, in the
kinds it names, on the real prompts of the methods, and it tells the methods
nothing but its answers."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

from veriplan.domains.blocksworld import SPACES
from veriplan.errors import BackendError, ConfigError
from veriplan.llm import LLM
from veriplan.llm.types import LLMRequest, Message
from veriplan.methods import direct
from veriplan.methods.closed_loop import method as closed_loop
from veriplan.methods.closed_loop import sc as SC
from veriplan.methods.closed_loop.config import Config as LoopConfig
from veriplan.methods.closed_loop.rc import BINARY
from veriplan.methods.controlled_plan import (
    ControlledPlanBackend,
    ErrorKind,
    Settings,
    decomposition,
    perturb,
    read_steps,
    reference_plan,
)
from veriplan.methods.drip import method as drip
from veriplan.methods.drip.config import Config as DripConfig
from veriplan.pddl.parser import parse_domain, parse_problem
from veriplan.pddl.task import Task
from veriplan.verify import validate_plan

EXAMPLES = Path(__file__).resolve().parents[2] / "src" / "veriplan" / "examples"
DOMAIN = parse_domain((EXAMPLES / "blocks-domain.pddl").read_text())
KINDS = (ErrorKind.ARG, ErrorKind.SKIP, ErrorKind.SWAP)


def interval_ok(k: int, n: int, p: float, z: float = 3.3) -> bool:
    """k successes in n within the binomial interval of p (z = 3.3: 99.9%)."""
    return abs(k - n * p) <= z * math.sqrt(n * p * (1 - p)) + 1


def blocks_problem(n: int, seed: int) -> Task:
    """Random towers of ``n`` blocks to random towers (never already solved)."""
    rng = random.Random(seed)
    names = "abcdefghij"[:n]

    def towers() -> list[list[str]]:
        out: list[list[str]] = []
        for b in rng.sample(names, n):
            if out and rng.random() < 0.6:
                rng.choice(out).append(b)
            else:
                out.append([b])
        return out

    def facts(ts: list[list[str]], init: bool) -> list[str]:
        f = []
        for t in ts:
            if init:
                f += [f"(ontable {t[0]})", f"(clear {t[-1]})"]
            f += [f"(on {x} {y})" for y, x in zip(t, t[1:])]
        return f

    start, goal = towers(), towers()
    goal_facts = facts(goal, False) or [f"(on {names[0]} {names[1]})"]
    if set(goal_facts) <= set(facts(start, True)):
        return blocks_problem(n, seed + 1000)
    text = (f"(define (problem p{seed}) (:domain {DOMAIN.name}) (:objects {' '.join(names)})"
            f" (:init (handempty) {' '.join(facts(start, True))})"
            f" (:goal (and {' '.join(goal_facts)})))")
    return Task(DOMAIN, parse_problem(text, DOMAIN))


PROBLEMS = [blocks_problem(3 + i % 4, i) for i in range(40)]


def lp_prompt(task: Task, previous: str | None = None, directive: str = "") -> str:
    c = SC.comprehend(task)
    if directive:
        from dataclasses import replace

        c = replace(c, directives=(directive,))
    return closed_loop.lp_prompt(task, c, previous, random_names=False)


def ask(backend: ControlledPlanBackend, prompt: str, sample: int = 0) -> str:
    return backend.complete(LLMRequest((Message("user", prompt),), sample_index=sample)).text


# ----- the settings -----------------------------------------------------------------------
def test_settings_are_checked():
    assert Settings.parse("plan:p=0.3,seed=2,kinds=skip+arg") == Settings(
        "plan", 0.3, 2, (ErrorKind.SKIP, ErrorKind.ARG))
    assert Settings.parse("drip:p=0.1").family == "drip"
    assert Settings.parse("closedloop").p == 0.2
    for bad in ("plan:q=1", "plan:p=1.5", "plan:p=x", "sqbcp:p=0.1", "plan:kinds=typo",
                "plan:kinds=arg+arg", "plan:p"):
        with pytest.raises(ConfigError):
            Settings.parse(bad)


# ----- the error model in itself --------------------------------------------------------------
REF = [("step", (f"o{i}",)) for i in range(10)]
OBJECTS = [f"o{i}" for i in range(10)] + ["x", "y"]


def _written(s: Settings, n: int = 600, objects: list[str] = OBJECTS):
    return [perturb(REF, s, ("t", r), lambda _st, _j: objects) for r in range(n)]


@pytest.mark.parametrize("p", [0.0, 0.05, 0.2, 0.4])
def test_the_recorded_error_rate_is_p_and_the_kinds_equally_likely(p):
    out = _written(Settings(p=p, seed=1))
    steps = len(out) * len(REF)
    errors = [k for w in out for _, k in w.errors]
    assert interval_ok(len(errors), steps, p)
    if p:
        # each kind a third, but the last step cannot swap: its kind is drawn between
        # arg and skip
        swap = (len(REF) - 1) / len(REF) / 3
        expected = {ErrorKind.SWAP: swap, ErrorKind.ARG: (1 - swap) / 2,
                    ErrorKind.SKIP: (1 - swap) / 2}
        assert all(interval_ok(errors.count(k), len(errors), expected[k]) for k in KINDS)
    else:
        assert all(w.steps == tuple(REF) for w in out)


def _inversions(order: list[int]) -> int:
    return sum(a > b for i, a in enumerate(order) for b in order[i + 1:])


@pytest.mark.parametrize("p", [0.1, 0.3])
def test_each_kind_measured_from_the_written_steps(p):
    # wrong arguments: same length, the differing steps differ in one argument
    out = _written(Settings(p=p, seed=2, kinds=(ErrorKind.ARG,)))
    wrong = sum(a != b for w in out for a, b in zip(w.steps, REF))
    assert all(len(w.steps) == len(REF) for w in out)
    assert interval_ok(wrong, len(out) * len(REF), p)
    # skipped: a subsequence, shorter by the number skipped
    out = _written(Settings(p=p, seed=3, kinds=(ErrorKind.SKIP,)))
    for w in out:
        it = iter(REF)
        assert all(st in it for st in w.steps)
    skipped = sum(len(REF) - len(w.steps) for w in out)
    assert interval_ok(skipped, len(out) * len(REF), p)
    # swapped: a permutation with one inverted pair per swap; the last step cannot swap
    # (with swap the only kind, it gets a wrong argument instead)
    out = _written(Settings(p=p, seed=4, kinds=(ErrorKind.SWAP,)), objects=["x", "y"])
    inv = 0
    for w in out:
        # a step not in the reference is the last one with its wrong argument
        body = [REF.index(st) if st in REF else len(REF) - 1 for st in w.steps]
        assert sorted(body) == list(range(len(REF)))
        inv += _inversions(body)
        assert _inversions(body) == sum(k is ErrorKind.SWAP for _, k in w.errors)
    assert interval_ok(inv, len(out) * (len(REF) - 1), p)


def test_draws_are_fixed_by_seed_and_key_and_differ_across_them():
    s = Settings(p=0.3, seed=5)
    a = perturb(REF, s, ("t", 1), lambda _st, _j: OBJECTS)
    assert a == perturb(REF, s, ("t", 1), lambda _st, _j: OBJECTS)
    others = [perturb(REF, s, ("t", k), lambda _st, _j: OBJECTS) for k in range(2, 12)]
    others += [perturb(REF, Settings(p=0.3, seed=6), ("t", 1), lambda _st, _j: OBJECTS)]
    assert any(o.steps != a.steps for o in others)


# ----- whole plans through the methods' own prompts -----------------------------------------
def test_the_backend_errs_at_p_on_the_closed_loop_prompt_and_only_writes_actions():
    backend = ControlledPlanBackend("plan:p=0.3,seed=0,kinds=arg")
    n = wrong = 0
    for task in PROBLEMS:
        prompt = lp_prompt(task)
        pt = backend.plan_task(prompt)  # the task as the prompt states it
        assert pt is not None
        ref = pt.reference(pt.task.init)
        assert validate_plan(task, ref).valid
        text = ask(backend, prompt)
        lines = text.splitlines()
        steps = read_steps(text)
        assert len(lines) == len(steps) == len(ref)  # nothing but action lines
        for got, want in zip(steps, ref):
            n += 1
            if (got.name, tuple(got.args)) != (want.name, tuple(want.args)):
                wrong += 1
                assert got.name == want.name
                assert sum(a != b for a, b in zip(got.args, want.args)) == 1
                assert set(got.args) <= set(task.objects)
    assert n > 200 and interval_ok(wrong, n, 0.3)


def test_direct_and_the_closed_loops_first_attempt_get_the_same_plan():
    backend = ControlledPlanBackend("plan:p=0.3,seed=0")
    from veriplan.methods.backprompt.method import first_prompt

    for task in PROBLEMS[:10]:
        assert ask(backend, lp_prompt(task)) == ask(backend, first_prompt(task, None))
    # a sampled regeneration (another sample_index) meets other errors
    assert any(ask(backend, lp_prompt(t)) != ask(backend, lp_prompt(t), sample=1)
               for t in PROBLEMS[:10])


def test_at_p_zero_both_methods_verify_at_once():
    backend = ControlledPlanBackend("plan:p=0,seed=0")
    for task in PROBLEMS[:8]:
        r = closed_loop.solve(task, LLM(backend))
        assert r.verified and r.attempts == 1
        assert direct.solve(task, LLM(backend), direct.Config(prompt="pddl")).verified


def _failing_at_3(task: Task) -> list[str] | None:
    """The reference with steps 3 and 4 exchanged, when that fails at step 3."""
    ref = [str(s) for s in reference_plan(task, task.init)]
    if len(ref) < 4:
        return None
    bad = ref[:2] + [ref[3], ref[2]] + ref[4:]
    v = validate_plan(task, read_steps("\n".join(bad)))
    return bad if v.failed_step == 3 else None


def test_a_repair_keeps_the_steps_that_ran_and_continues_from_their_state():
    backend = ControlledPlanBackend("plan:p=0,seed=0")
    checked = 0
    for task in PROBLEMS:
        bad = _failing_at_3(task)
        if bad is None:
            continue
        checked += 1
        answer = ask(backend, lp_prompt(task, "\n".join(bad), "Keep steps 1-2 (they run)."))
        lines = answer.splitlines()
        assert lines[:2] == bad[:2]
        assert validate_plan(task, read_steps(answer)).valid
        # the feedback of the final-validation-only ablation does not say where: a fresh plan
        prompt = lp_prompt(task, "\n".join(bad), BINARY.directives[0])
        pt = backend.plan_task(prompt)
        assert pt is not None
        assert read_steps(ask(backend, prompt)) == pt.reference(pt.task.init)
    assert checked >= 5


def test_repairs_err_at_p_too():
    backend = ControlledPlanBackend("plan:p=0.3,seed=1,kinds=skip")
    n = skipped = 0
    for task in PROBLEMS:
        bad = _failing_at_3(task)
        if bad is None:
            continue
        prompt = lp_prompt(task, "\n".join(bad))
        answer = read_steps(ask(backend, prompt))
        pt = backend.plan_task(prompt)
        assert pt is not None
        ran, state = pt.ran(read_steps("\n".join(bad)))
        assert ran == 2
        rest = pt.reference(state)
        n += len(rest)
        skipped += len(rest) - (len(answer) - 2)
    assert n > 60 and interval_ok(skipped, n, 0.3)


def test_the_closed_loop_never_verifies_less_than_direct_and_repairs_help():
    backend = ControlledPlanBackend("plan:p=0.2,seed=0")
    loop = dir_ = 0
    for task in PROBLEMS:
        d = direct.solve(task, LLM(backend), direct.Config(prompt="pddl")).verified
        c = closed_loop.solve(task, LLM(backend), LoopConfig(max_attempts=4)).verified
        assert c or not d  # the loop's first attempt is direct's plan
        loop, dir_ = loop + c, dir_ + d
    assert loop > dir_


# ----- DRIP's decompositions ----------------------------------------------------------------------
DRIP_PROBLEMS = [Task(DOMAIN, parse_problem((EXAMPLES / "blocks6-problem.pddl").read_text(),
                                            DOMAIN))] + [blocks_problem(5 + i % 3, 100 + i)
                                                         for i in range(5)]


def test_at_p_zero_the_decomposer_is_drips_perfect_decomposer():
    backend = ControlledPlanBackend("drip:p=0,seed=0")
    for task in DRIP_PROBLEMS:
        perfect = drip.solve(task, LLM(backend), DripConfig(decomposer="regression"))
        ours = drip.solve(task, LLM(backend), DripConfig())
        assert ours.plan == perfect.plan and ours.verified == perfect.verified
        assert ours.metrics["tree_size"] == perfect.metrics["tree_size"]


def test_with_the_condition_it_knows_only_what_the_prompt_says():
    # DRIP's prompt with the condition asks not to undo goal facts but does not state the
    # goal. Tower b-c-a (b at the bottom), goal c-a-b: "stack b a" needs a not above b.
    # The perfect decomposer, which has the task's goal, clears b (c goes to the table
    # with a on it), keeping the goal fact (on a c); the controlled decomposer at p = 0
    # cannot know that (on a c) is a goal fact and puts a down, undoing it.
    from veriplan.core.plan import Step
    from veriplan.domains.blocksworld import goal_atoms
    from veriplan.methods.drip.decomposers import RegressionDecomposer
    from veriplan.methods.drip.tree import Kind, Node

    text = (f"(define (problem tower) (:domain {DOMAIN.name}) (:objects a b c) (:init "
            "(handempty) (ontable b) (on c b) (on a c) (clear a)) (:goal (and (on a c) "
            "(on b a))))")
    space = SPACES["relaxed"]
    stask = space.task(Task(DOMAIN, parse_problem(text, DOMAIN)))
    condition = space.describe_state(stask, stask.init)
    node = Node(1, Kind.ACTION, "stack b a", 0, 1, step=Step("stack", ("b", "a")))
    perfect = RegressionDecomposer(stask, space, goal_atoms(stask)).decompose(
        node, condition, stask.init)
    assert [c.text for c in perfect.children] == ["unstack blocks b"]
    got = decomposition(_decompose_prompt("stack b a", condition=condition),
                        Settings("drip", 0.0, 0))
    assert [t for t, _ in got.steps] == ["put-down a"]


def _decompose_prompt(goal: str, space: str = "relaxed", condition: str | None = None) -> str:
    return drip.render("decompose.j2", space=SPACES[space], goal=goal, condition=condition)


GOALS = [", ".join(f"block {x} is on top of block {y}" for x, y in zip(t, t[1:]))
         for t in ("abcde", "fbdca", "ecabd", "cadbe", "dacbf", "bfeac")]


@pytest.mark.parametrize("kind", KINDS)
def test_decompositions_err_at_p(kind):
    p = 0.3
    n = wrong = 0
    for seed in range(15):
        s = Settings("drip", p, seed, (kind,))
        for goal in GOALS:
            ref = decomposition(_decompose_prompt(goal), Settings("drip", 0.0, seed))
            got = decomposition(_decompose_prompt(goal), s)
            ref_lines = [t for t, _ in ref.steps]
            lines = [t for t, _ in got.steps]
            if kind is ErrorKind.SKIP:
                n, wrong = n + len(ref_lines), wrong + len(ref_lines) - len(lines)
            elif kind is ErrorKind.ARG:
                n += len(ref_lines)
                wrong += sum(a != b for a, b in zip(lines, ref_lines))
                named = set(goal.replace(",", " ").split())
                assert all(set(ln.split()[1:]) <= named for ln in lines)
            else:
                n += len(ref_lines) - 1
                order = [ref_lines.index(ln) for ln in lines if ln in ref_lines]
                wrong += _inversions(order)
    assert n > 200 and interval_ok(wrong, n, p)


def test_decompositions_of_action_nodes_and_with_the_condition():
    s = Settings("drip", 0.0, 0)
    got = [t for t, _ in decomposition(_decompose_prompt("stack a e"), s).steps]
    assert got == ["unstack blocks e", "put-down e"]
    got = [t for t, _ in decomposition(_decompose_prompt(
        "stack a e", condition="block a is clear, block c is clear, block e is on top of "
        "block c, block a is on the table, block c is on the table."), s).steps]
    assert got == [] or all(line.split()[0] in ("stack", "put-down", "unstack") for line in got)
    got = [t for t, _ in decomposition(_decompose_prompt("stack a e", "standard"), s).steps]
    assert got and all(line.split()[0] in ("pick-up", "unstack", "put-down", "stack")
                       for line in got)


def test_other_prompts_are_refused():
    backend = ControlledPlanBackend("plan:p=0.1")
    with pytest.raises(BackendError):
        ask(backend, "Solve this: put block a on block b. Plan:")


# ----- the report's section -------------------------------------------------------------------
def _record(method: str, config: dict, p: float, instance: str, verified: bool,
            attempts: int = 1, backend: str = "controlled-plan"):
    import json

    from veriplan.bench.store import UnitRecord

    result = {"attempts": attempts, "transcript": []}
    return UnitRecord(f"{method}{config}{p}{instance}", method, "bw", instance, backend,
                      f"plan:p={p},seed=0", json.dumps(config, sort_keys=True), 0, "done",
                      verified, "llm" if verified else None, attempts, 10, 0.0, 0.1, None,
                      None, json.dumps(result), "0", "0", 0.0)


def test_the_report_section_pairs_arms_on_the_same_tasks(tmp_path):
    from veriplan.methods.closed_loop import report as R

    records = [_record("direct", {"prompt": "pddl"}, 0.2, f"i{i}", i < 2) for i in range(6)]
    records += [_record("closed-loop", {"max_attempts": 2}, 0.2, f"i{i}", i < 5, 1 + (i >= 2))
                for i in range(6)]
    records += [_record("direct", {"prompt": "pddl"}, 0.2, "i0", True, backend="llamacpp")]
    md, data, plots = R.section(records, tmp_path)
    assert data is not None and plots and (tmp_path / plots[0]).exists()
    rows = {r["arm"]: r for r in data["rows"]}
    assert rows["direct"]["verified"] == 2 and rows["direct"]["n"] == 6  # llamacpp left out
    assert rows["closed-loop K=2"]["verified"] == 5
    assert rows["closed-loop K=2"]["rounds"] == 4 / 6
    (pair,) = [t for t in data["pairs"] if t["a"] == "closed-loop K=2" and t["b"] == "direct"]
    assert (pair["only_a"], pair["only_b"], pair["both"]) == (3, 0, 2)
    assert "Controlled-model results" in md
    assert R.section([records[-1]], tmp_path) == ("", None, [])


def test_the_report_pairs_units_under_the_same_seeds_only(tmp_path):
    from veriplan.methods.closed_loop import report as R

    records = []
    for seed, wins in ((0, (True, False)), (1, (False, True))):
        for method, config, verified in (("direct", {"prompt": "pddl"}, wins[0]),
                                         ("closed-loop", {"max_attempts": 2}, wins[1])):
            r = _record(method, config, 0.2, "i0", verified)
            records.append(type(r)(**{**r.__dict__, "id": f"{r.id}{seed}",
                                      "model": f"plan:p=0.2,seed={seed}"}))
    _, data, _ = R.section(records, tmp_path)
    assert data is not None
    (pair,) = [t for t in data["pairs"] if t["a"] == "closed-loop K=2" and t["b"] == "direct"]
    assert (pair["shared"], pair["only_a"], pair["only_b"]) == (2, 1, 1)
