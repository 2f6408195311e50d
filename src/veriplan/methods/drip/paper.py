"""DRIP's paper ("DRIP: Decompositional Reasoning for agent Interpretable
Planning", anonymous ACL submission, ../shared/papers/drip_...txt): every
claim with the paper's number, setting and source, measured from run stores
(``veriplan paper drip``).

The paper's "Manual" settings (a person executes the actions and judges
executability) are veriplan's symbolic actuator and ReAct's symbolic
environment (the PDDL model in the person's place); its "LLM" settings are the
LLM actuator and ReAct's LLM environment. Accuracy is the plan verified on the
instance's own Blocksworld-hard files (scope ``plan_on_task``). The controlled
model (``controlled-plan``) answers DRIP's decomposition prompts only (not
CoT's or ReAct's, nor the LLM actuator's executability prompts): with it only
DRIP (Manual) is run."""

from __future__ import annotations

from collections.abc import Sequence

from veriplan.bench.units import SweepPlan
from veriplan.papers.base import ClaimSpec, CommandFor, Groups, Outcome, StorePaper
from veriplan.papers.claims import Claim, Comparison, ModelKind, Scale
from veriplan.papers.measure import (
    Unit,
    difference,
    mean,
    mean_difference,
    rate,
    select,
)
from veriplan.papers.protocol import RunRequest

NAME = "drip"
HARD = ("blocksworld_hard", "blocksworld_hard_smallest20")
SETTING = "Blocksworld-hard, 110 problems of 6-15 blocks, tower-move actions"
QUICK_LIMIT = 5
# The paper's arms: id -> (method, settings that select it, words)
ARMS = {"drip-manual": ("drip", {"actuator": "symbolic"}, "DRIP (Manual)"),
        "drip-llm": ("drip", {"actuator": "llm"}, "DRIP (LLM actuator)"),
        "cot": ("cot", {}, "CoT"),
        "react-manual": ("react", {"env": "symbolic"}, "ReAct (Manual)"),
        "react-llm": ("react", {"env": "llm"}, "ReAct (LLM)")}
# Table 1: (arm, model, accuracy %, solved of 110, the words naming the model, lower case)
TABLE1 = (("drip-llm", "GPT-4o", 16.4, 18, ("gpt-4o",)),
          ("drip-llm", "Claude 3.7 Sonnet", 40.9, 45, ("claude",)),
          ("drip-manual", "GPT-4o", 82.7, 91, ("gpt-4o",)),
          ("cot", "GPT-4o", 13.6, 15, ("gpt-4o",)),
          ("cot", "Claude 3.7 Sonnet", 23.6, 26, ("claude",)),
          ("react-llm", "GPT-4o", 1.8, 2, ("gpt-4o",)),
          ("react-manual", "GPT-4o", 31.8, 35, ("gpt-4o",)))
USER_MODEL = ("the user's endpoint: --backend openai --base-url URL --model M "
              "(repeat --model for several)")
FRAMEWORK = {"goal_conflict"}  # the paper's "errors in the framework" (Section 4.1.4)
DECOMPOSITION = {"decomposition", "incomplete_decomposition"}


def arm(units: Sequence[Unit], name: str) -> list[Unit]:
    method, settings, _ = ARMS[name]
    defaults = {"actuator": "symbolic", "env": "symbolic"}

    def keep(u: Unit) -> bool:
        if u.settings.get("decomposer", "llm") != "llm":
            return False  # the perfect decomposer is not the paper's DRIP
        if u.settings.get("action_space", "relaxed") != "relaxed":
            return False
        return all(u.settings.get(k, defaults[k]) == v for k, v in settings.items())
    return select(units, method=method, dataset=HARD, where=keep)


def _calls(u: Unit) -> float | None:
    return float(u.record.llm_calls) if u.record.status == "done" else None


def _length(u: Unit) -> float | None:
    v = u.metrics.get("method_plan_length", u.metrics.get("plan_length"))
    return None if v is None else float(v)  # type: ignore[arg-type]


def accuracy(name: str):
    def measure(units: Sequence[Unit], command: CommandFor) -> Outcome:
        us = arm(units, name)
        return rate(us, command=command(us),
                    what=f"verified on the task ({us[0].dataset})") if us else None
    return measure


def named_accuracy(name: str, words: Sequence[str], model: str):
    """A Table 1 row of one named model: the user's units of that model only."""
    def across(groups: Groups, command: CommandFor) -> Outcome:
        found = [g for (kind, m), g in groups.items()
                 if kind is ModelKind.USER and all(w in m.lower() for w in words)]
        if not found:
            return f"needs {model} at {USER_MODEL}; no unit of it in the stores read"
        return accuracy(name)(found[0], command)
    return across


def accuracy_gap(a: str, b: str):
    def measure(units: Sequence[Unit], command: CommandFor) -> Outcome:
        ua, ub = arm(units, a), arm(units, b)
        if not ua or not ub:
            return None
        return difference(ua, ub, lambda u: u.model_solved, command=command([*ua, *ub]),
                          names=(a, b), what="verified")
    return measure


def stability(units: Sequence[Unit], command: CommandFor) -> Outcome:
    """Figure 6: DRIP (Manual)'s accuracy on problems of 13-15 blocks minus on
    6-12 blocks (the paper: stable as blocks increase)."""
    us = arm(units, "drip-manual")
    size = {u.record.id: u.metrics.get("size") for u in us}
    big = [u for u in us if isinstance(size[u.record.id], int) and size[u.record.id] >= 13]
    small = [u for u in us if isinstance(size[u.record.id], int) and size[u.record.id] < 13]
    if not us:
        return None
    if not big or not small:
        return (f"the {len(us)} DRIP (Manual) units ({us[0].kind.value} {us[0].model}) do "
                "not span both 6-12 and 13-15 blocks")
    return difference(big, small, lambda u: u.model_solved, command=command(us),
                      names=("13-15 blocks", "6-12 blocks"), what="verified")


def failure_share(kinds: set[str], what: str):
    """Section 4.1.4: the share of DRIP (Manual)'s failures of these kinds."""
    def measure(units: Sequence[Unit], command: CommandFor) -> Outcome:
        us = arm(units, "drip-manual")
        failed = [u for u in us if u.record.status == "done" and not u.model_solved]
        if not us:
            return None
        if not failed:
            return f"DRIP (Manual) failed on none of its {len(us)} units"
        return rate(failed, lambda u: u.failure in kinds, command=command(us),
                    what=f"failures {what}")
    return measure


def fewer_actions(a: str, b: str):
    """Figure 7: plan length of ``a`` minus ``b`` on the problems both solved."""
    def measure(units: Sequence[Unit], command: CommandFor) -> Outcome:
        ua = {u.record.instance: u for u in arm(units, a) if u.model_solved}
        ub = {u.record.instance: u for u in arm(units, b) if u.model_solved}
        shared = sorted(set(ua) & set(ub))
        if not arm(units, a) or not arm(units, b):
            return None
        if not shared:
            return f"no problem solved by both {a} and {b}"
        diffs = []
        for i in shared:
            la, lb = _length(ua[i]), _length(ub[i])
            if la is not None and lb is not None:
                diffs.append((ua[i], la - lb))
        pairs = {u.record.id: d for u, d in diffs}
        return mean([u for u, _ in diffs], lambda u: pairs[u.record.id],
                    command=command([*ua.values(), *ub.values()]),
                    what=f"{a} minus {b} actions on problems both solved")
    return measure


def calls(name: str, against: str | None = None):
    def measure(units: Sequence[Unit], command: CommandFor) -> Outcome:
        us = arm(units, name)
        if not us:
            return None
        if against is None:
            return mean(us, _calls, command=command(us), what="LLM calls a problem")
        other = arm(units, against)
        if not other:
            return None
        return mean_difference(us, other, _calls, command=command([*us, *other]),
                               names=(name, against))
    return measure


def _claims() -> tuple[ClaimSpec, ...]:
    specs: list[ClaimSpec] = []
    for name, model, paper, solved, words in TABLE1:
        label = ARMS[name][2]
        cid = f"T1.{name}.{model.split()[0].lower()}"
        claim = Claim(NAME, cid, f"{label}'s accuracy with {model}",
                      f"{paper}% ({solved}/110)", f"{SETTING}; {model}", "Table 1",
                      paper_value=paper / 100)
        if model == "GPT-4o":
            specs.append(ClaimSpec(claim, accuracy(name)))
        else:
            specs.append(ClaimSpec(
                Claim(**{**claim.__dict__, "needs": f"{model} at {USER_MODEL}"}),
                across=named_accuracy(name, words, model)))
    specs += [
        ClaimSpec(Claim(NAME, "T1.drip-manual-above-cot", "DRIP (Manual) is more accurate "
                        "than CoT", "82.7% vs 13.6%", f"{SETTING}; GPT-4o",
                        "Table 1; Section 4.1.3", Comparison.ABOVE, paper_value=0.691,
                        threshold=0.0, scale=Scale.POINTS),
                  accuracy_gap("drip-manual", "cot")),
        ClaimSpec(Claim(NAME, "T1.drip-manual-above-react-manual", "DRIP (Manual) is more "
                        "accurate than ReAct (Manual)", "82.7% vs 31.8%", f"{SETTING}; GPT-4o",
                        "Table 1; Figure 6", Comparison.ABOVE, paper_value=0.509,
                        threshold=0.0, scale=Scale.POINTS),
                  accuracy_gap("drip-manual", "react-manual")),
        ClaimSpec(Claim(NAME, "T1.drip-llm-above-cot", "among LLM-only methods DRIP is the "
                        "most accurate: above CoT with the same model",
                        "40.9% vs 23.6% (Claude 3.7 Sonnet)", SETTING,
                        "Table 1; Section 4.1.3", Comparison.ABOVE, paper_value=0.173,
                        threshold=0.0, scale=Scale.POINTS),
                  accuracy_gap("drip-llm", "cot")),
        ClaimSpec(Claim(NAME, "F6.drip-manual-stable", "DRIP (Manual) keeps its accuracy as "
                        "blocks increase (read as: accuracy on 13-15 blocks minus on 6-12 "
                        "blocks, no difference)", "stable (no number)", SETTING,
                        "Figure 6; Section 4.1.3; Abstract (robustness)", paper_value=0.0,
                        scale=Scale.POINTS), stability),
        ClaimSpec(Claim(NAME, "F7.drip-fewer-actions", "DRIP uses fewer actions than CoT on "
                        "the problems both solve", "4.29 fewer on average",
                        f"{SETTING}; Claude 3.7 Sonnet", "Figure 7; Section 4.1.3",
                        Comparison.BELOW, paper_value=-4.29, threshold=0.0,
                        scale=Scale.NUMBER), fewer_actions("drip-llm", "cot")),
        ClaimSpec(Claim(NAME, "T2.framework-errors", "of DRIP (Manual)'s failures, the share "
                        "caused by the framework (goal conflicts)", "5 of 19 (26.3%)",
                        f"{SETTING}; GPT-4o", "Table 2; Section 4.1.4", paper_value=5 / 19),
                  failure_share(FRAMEWORK, "from goal conflicts (the framework)")),
        ClaimSpec(Claim(NAME, "T2.decomposition-errors", "of DRIP (Manual)'s failures, the "
                        "share caused by the LLM's decomposition", "14 of 19 (73.7%)",
                        f"{SETTING}; GPT-4o", "Table 2; Section 4.1.4", paper_value=14 / 19),
                  failure_share(DECOMPOSITION, "from decomposition")),
        ClaimSpec(Claim(NAME, "T2.failures", "DRIP (Manual) fails on 17.3% of the problems",
                        "19 of 110 (17.3%)", f"{SETTING}; GPT-4o", "Section 4.1.4",
                        paper_value=19 / 110),
                  lambda units, command: _failures(units, command)),
        ClaimSpec(Claim(NAME, "Limits.drip-manual-calls", "DRIP (Manual) averages 5.98 LLM "
                        "calls a problem", "5.98", f"{SETTING}; GPT-4o", "Limitations",
                        paper_value=5.98, scale=Scale.NUMBER), calls("drip-manual")),
        ClaimSpec(Claim(NAME, "Limits.drip-llm-calls", "DRIP (Claude) averages 6.18 LLM calls "
                        "a problem", "6.18", f"{SETTING}; Claude 3.7 Sonnet", "Limitations",
                        paper_value=6.18, scale=Scale.NUMBER), calls("drip-llm")),
        ClaimSpec(Claim(NAME, "Limits.react-manual-calls", "ReAct (Manual) averages 28.3 "
                        "LLM calls a problem", "28.3", f"{SETTING}; GPT-4o", "Limitations",
                        paper_value=28.3, scale=Scale.NUMBER), calls("react-manual")),
        ClaimSpec(Claim(NAME, "Limits.fewer-calls-than-react", "DRIP needs far fewer LLM "
                        "calls than ReAct (Manual)", "5.98 vs 28.3", f"{SETTING}; GPT-4o",
                        "Limitations", Comparison.BELOW, paper_value=5.98 - 28.3,
                        threshold=0.0, scale=Scale.NUMBER),
                  calls("drip-manual", "react-manual")),
        ClaimSpec(Claim(NAME, "ALFRED.qualitative", "on ALFRED, DRIP's plans are finer-"
                        "grained and more physically grounded than CoT's", "qualitative",
                        "ALFRED, GPT-4o", "Section 4.2; Table 3", paper_value=0.0,
                        scale=Scale.NUMBER,
                        needs="a qualitative comparison with no number; veriplan runs no "
                              "ALFRED tasks")),
    ]
    return tuple(specs)


def _failures(units: Sequence[Unit], command: CommandFor) -> Outcome:
    us = arm(units, "drip-manual")
    if not us:
        return None
    return rate(us, lambda u: not u.model_solved, command=command(us), what="not verified")


def plans(request: RunRequest) -> list[SweepPlan]:
    """Table 1's arms on the 110 Blocksworld-hard problems (DRIP with the symbolic
    and the LLM actuator, CoT, ReAct with the symbolic and the LLM environment);
    with the controlled model, DRIP (Manual) only; quick: the same arms on the 5
    Blocksworld-hard problems with the fewest blocks."""
    backends = list(request.backends)
    controlled = all(b.name.startswith("controlled") for b in backends)
    dataset = "blocksworld_hard_smallest20" if request.quick else "blocksworld_hard"
    limit = request.limit or (QUICK_LIMIT if request.quick else None)
    if controlled:
        return [SweepPlan(["drip"], [dataset], backends, [{"actuator": "symbolic"}], [0],
                          limit)]
    configs = [{"method": "drip", "actuator": "symbolic"}, {"method": "drip", "actuator": "llm"},
               {"method": "react", "env": "symbolic"}, {"method": "react", "env": "llm"},
               {"method": "cot"}]
    return [SweepPlan(["drip", "cot", "react"], [dataset], backends, configs, [0], limit)]


PAPER = StorePaper(
    name=NAME,
    title="DRIP: Decompositional Reasoning for agent Interpretable Planning",
    quick=f"Table 1's arms on the {QUICK_LIMIT} Blocksworld-hard problems with the fewest "
          "blocks (with the controlled model: DRIP (Manual) only); the full protocol runs "
          "them on all 110",
    controlled="controlled-plan",
    committed=("drip-qwen-small20", "drip-paper-controlled"),
    specs=_claims(),
    plans=plans,
    commands={"drip-qwen-small20": "veriplan bench drip --dataset blocksworld_hard_smallest20 "
                                   "--data-dir ../shared/data --out results/drip-qwen-small20 "
                                   "--actuator symbolic --no-cache"},
)

__all__ = ["PAPER", "arm", "plans"]
