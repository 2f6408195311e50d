"""AutoToS's paper (Cao, Katz, Kokel, Srinivas and Sohrabi, "Automating Thought
of Search: A Journey Towards Soundness and Completeness", AAAI 2025;
../shared/papers/autotos_automating_thought_of_search.txt): every claim with
the paper's number, setting and source, measured from run stores
(``veriplan paper autotos``).

A unit is one AutoToS run on one domain (the loop, then the evaluation set
searched with the final components, every solution validated here). Its
accuracy at the paper's three points (Figure 2: the first components, the
first time the soundness tests pass, the end) is the share of evaluation
instances solved and validated. Figure 2 gives its numbers only as a plot: a
claim read from it is a direction (w/ val above w/o val; the end above the
sound point), never a number. Table 1 gives numbers per model: those cells
need the named model at the user's endpoint; the range claim ("minimal
feedback iterations": at most Table 1's largest mean, 10.0 calls) is measured
with any model. With the controlled writer (``controlled-autotos``) the error
counts of Figure 4 and section 6.1 measure only the rates it was given, so
those claims are not measurable with it.
"""

from __future__ import annotations

from collections.abc import Sequence

from veriplan.bench.stats import wilson_interval
from veriplan.bench.units import SweepPlan
from veriplan.papers.base import ClaimSpec, CommandFor, Groups, Outcome, StorePaper
from veriplan.papers.claims import Claim, Comparison, Measured, ModelKind, Scale
from veriplan.papers.measure import Unit, mean, rate, select
from veriplan.papers.protocol import RunRequest

NAME = "autotos"
DOMAINS = {"24game": "24 Game", "prontoqa": "PrOntoQA", "sokoban": "Sokoban",
           "crossword": "Crossword", "blocksworld": "BlocksWorld"}  # Table 1's order
SETTING = ("greedy decoding, 10 calls a function (19 in all), 5 repeats, BFS (DFS for "
           "crosswords), 1 s a call, 600 s a search")
# Table 1: model -> calls per domain (Table 1's order), the words naming it (lower case)
TABLE1 = {"GPT-4o-mini": ((8.8, 4.8, 6.4, 9.6, 10.0), ("gpt-4o-mini",)),
          "GPT-4o": ((3.4, 2.6, 2.2, 5.8, 2.0), ("gpt-4o",)),
          "Llama3.1-405b": ((3.4, 2.0, 2.6, 4.0, 3.2), ("llama", "405")),
          "Llama3.1-70b": ((7.4, 2.0, 8.2, 6.2, 5.8), ("llama", "70")),
          "DeepSeek-CoderV2": ((4.4, 2.0, 2.8, 6.6, 4.2), ("deepseek",))}
TOS = (2.2, 2.6, None, 3.8, 3.8)  # Table 1's ToS row (GPT-4, human feedback)
MAX_CALLS = 10.0  # Table 1's largest mean
QUICK_DOMAINS = ("24game",)
QUICK_SEEDS = (0, 1)
QUICK_LIMIT = 20  # evaluation instances a domain in the quick subset
USER_MODEL = ("the user's endpoint: --backend openai --base-url URL --model M "
              "(repeat --model for several)")
STUDY = "autotos-controlled"
STUDY_COMMAND = ("for d in 24game blocksworld prontoqa crossword sokoban; do veriplan bench "
                 "--matrix autotos:autotos_controlled_$d --data-dir ../shared/data "
                 "--out results/autotos-controlled --no-cache; done")


# ----- which units -----------------------------------------------------------------------
def runs(units: Sequence[Unit], domain: str, partial: bool = True) -> list[Unit]:
    """The finished runs on ``domain`` with the partial soundness check on
    (``partial``; False: the paper's "w/o val") and the completeness step."""
    def keep(u: Unit) -> bool:
        m = u.metrics
        return (u.record.status == "done" and bool(m.get("partial_check", True)) == partial
                and u.settings.get("completeness", True) is not False
                and isinstance(m.get("accuracy"), dict))
    return select(units, method=NAME, dataset=f"autotos_{domain}", where=keep)


def point(u: Unit, name: str) -> float | None:
    """The run's accuracy at ``name`` ("initial", "sound"; "end": what the run
    ended with, whatever its status)."""
    acc = u.metrics.get("accuracy")
    v = acc.get("final" if name == "end" else name) if isinstance(acc, dict) else None
    return None if v is None else float(v)


def calls(u: Unit) -> float | None:
    c = u.metrics.get("calls")
    return float(sum(c.values())) if isinstance(c, dict) else None


def _model(units: Sequence[Unit]) -> str:
    return f"{units[0].kind.value} {units[0].model}" if units else "no units"


# ----- measures --------------------------------------------------------------------------
def at_100(domain: str):
    """The share of runs (w/ val) that end at 100% accuracy."""
    def measure(units: Sequence[Unit], command: CommandFor) -> Outcome:
        us = [u for u in runs(units, domain) if point(u, "end") is not None]
        if not us:
            return None
        passed = sum(1 for u in us if u.metrics.get("status") == "passed")
        return rate(us, lambda u: point(u, "end") == 1.0, command=command(us),
                    what=f"runs at 100% at the end ({passed} passed every test; {sizes(us)})")
    return measure


def sizes(units: Sequence[Unit]) -> str:
    """The evaluation sets the units were measured on, in words."""
    limits = sorted({int(u.settings.get("eval_limit") or 0) for u in units})
    if limits == [0]:
        return "the whole evaluation set"
    return "evaluated on the first " + "/".join(str(n) if n else "all" for n in limits) + \
        " instances"


def mean_calls(domain: str):
    def measure(units: Sequence[Unit], command: CommandFor) -> Outcome:
        us = runs(units, domain)
        return mean(us, calls, command=command(us), what="calls a run") if us else None
    return measure


def named_calls(model: str, domain: str):
    words = TABLE1[model][1]

    def across(groups: Groups, command: CommandFor) -> Outcome:
        found = [g for (kind, m), g in groups.items()
                 if kind is ModelKind.USER and all(w in m.lower() for w in words)
                 and not (model == "GPT-4o" and "mini" in m.lower())]
        if not found:
            return f"needs {model} at {USER_MODEL}; no unit of it in the stores read"
        return mean_calls(domain)(found[0], command)
    return across


def val_gain(domain: str):
    """Figure 2's first hypothesis: end accuracy w/ val minus w/o val, paired
    by seed where both ran (the mean of the per-seed differences)."""
    def measure(units: Sequence[Unit], command: CommandFor) -> Outcome:
        on = {u.record.seed: u for u in runs(units, domain, True)}
        off = {u.record.seed: u for u in runs(units, domain, False)}
        seeds = sorted(set(on) & set(off))
        if not seeds:
            return None if not on or not off else \
                f"no seed ran both w/ and w/o val ({_model([*on.values()])})"
        pairs = [(on[s], off[s]) for s in seeds]
        diff = {id(a): (point(a, "end") or 0.0) - (point(b, "end") or 0.0) for a, b in pairs}
        us = [a for a, _ in pairs]
        return mean(us, lambda u: diff[id(u)], command=command([*us, *(b for _, b in pairs)]),
                    what="seeds: end accuracy w/ val minus w/o val")
    return measure


def completeness_gain(domain: str):
    """Figure 2's second hypothesis: end accuracy minus the accuracy when the
    soundness tests first passed, over the runs (w/ val) that reached it."""
    def measure(units: Sequence[Unit], command: CommandFor) -> Outcome:
        us = [u for u in runs(units, domain)
              if point(u, "sound") is not None and point(u, "end") is not None]
        if not us:
            return None
        return mean(us, lambda u: (point(u, "end") or 0.0) - (point(u, "sound") or 0.0),
                    command=command(us), what="runs: end minus sound-point accuracy")
    return measure


def at_least_two(units: Sequence[Unit], command: CommandFor) -> Outcome:
    us = [u for d in DOMAINS for u in runs(units, d) + runs(units, d, False)]
    if not us:
        return None
    return rate(us, lambda u: (calls(u) or 0) >= 2, command=command(us),
                what="runs with at least 2 calls")


def successor_share(units: Sequence[Unit], command: CommandFor) -> Outcome:
    """Section 6.1 / Figure 4: the share of errors that are failed successor
    soundness or completeness tests (errors counted one a unit of count)."""
    us = [u for d in DOMAINS for u in runs(units, d)]
    if not us:
        return None
    if us[0].kind is ModelKind.CONTROLLED:
        return ("the controlled writer's error counts are the rates it was given "
                f"({us[0].model}): they measure nothing of the paper's models")
    succ = total = 0
    for u in us:
        for cat, k in (u.metrics.get("categories") or {}).items():
            total += int(k)
            succ += int(k) if cat in ("succ_soundness", "succ_completeness") else 0
    if not total:
        return f"no errors in the {len(us)} runs ({_model(us)})"
    return Measured(succ / total, wilson_interval(succ, total), total, us[0].kind,
                    command(us), us[0].model,
                    detail=f"{succ} of {total} errors in {len(us)} runs (errors counted "
                           "as independent)")


def across_models(groups: Groups, command: CommandFor) -> Outcome:
    users = [g for (kind, _m), g in groups.items() if kind is ModelKind.USER]
    if len(users) < 2:
        return (f"needs several real models ({len(users)} user model(s) in the stores read): "
                f"run {USER_MODEL}")
    return ("several user models are in the stores; 'consistent' has no number in the "
            "paper to compare them by: see each model's Table 1 and accuracy rows")


# ----- the claims ------------------------------------------------------------------------
def _claims() -> tuple[ClaimSpec, ...]:
    specs: list[ClaimSpec] = []
    for domain, label in DOMAINS.items():
        specs.append(ClaimSpec(Claim(
            NAME, f"acc100.{domain}",
            f"after feedback, AutoToS reaches 100% accuracy on {label} (the share of runs "
            "ending at 100%)", "100%", f"{SETTING}; w/ val, with the completeness step",
            "Abstract; Section 7; Figure 2", paper_value=1.0), at_100(domain)))
    for domain, label in DOMAINS.items():
        specs.append(ClaimSpec(Claim(
            NAME, f"T1.range.{domain}",
            f"few calls to the model on {label}: the mean calls a run stay below Table 1's "
            f"largest mean ({MAX_CALLS})", f"2.0-{MAX_CALLS} (Table 1, all models)", SETTING,
            "Table 1; Section 5", Comparison.BELOW, threshold=MAX_CALLS, scale=Scale.NUMBER),
            mean_calls(domain)))
    for model, (cells, _words) in TABLE1.items():
        for (domain, label), paper in zip(DOMAINS.items(), cells, strict=True):
            specs.append(ClaimSpec(Claim(
                NAME, f"T1.{model}.{domain}", f"{model}'s mean calls a run on {label}",
                f"{paper}", f"{model}; {SETTING}", "Table 1", paper_value=paper,
                scale=Scale.NUMBER, needs=f"{model} at {USER_MODEL}"),
                across=named_calls(model, domain)))
    for (domain, label), paper in zip(DOMAINS.items(), TOS, strict=True):
        if paper is not None:
            specs.append(ClaimSpec(Claim(
                NAME, f"T1.ToS.{domain}", f"ToS (GPT-4, a human's feedback): calls on {label}",
                f"{paper}", "GPT-4 with a human expert's feedback", "Table 1",
                paper_value=paper, scale=Scale.NUMBER,
                needs="ToS's human-feedback sessions; veriplan has no human in the loop")))
    for domain, label in DOMAINS.items():
        specs.append(ClaimSpec(Claim(
            NAME, f"F2.val.{domain}",
            f"the partial soundness check raises the end accuracy on {label} (w/ val minus "
            "w/o val, paired by repeat)", "w/ val above w/o val (plot only)",
            f"{SETTING}; each model w/ and w/o val", "Figure 2; Section 5 (hypothesis 1)",
            Comparison.ABOVE, threshold=0.0, scale=Scale.POINTS), val_gain(domain)))
    for domain, label in DOMAINS.items():
        specs.append(ClaimSpec(Claim(
            NAME, f"F2.completeness.{domain}",
            f"the completeness step raises the accuracy on {label} (end minus the point "
            "where the soundness tests first passed)", "a strong increase (plot only)",
            f"{SETTING}; w/ val", "Figure 2; Section 5 (hypothesis 2)", Comparison.ABOVE,
            threshold=0.0, scale=Scale.POINTS), completeness_gain(domain)))
    specs.append(ClaimSpec(Claim(
        NAME, "T1.minimum", "every run makes at least 2 calls, one a component", "2",
        SETTING, "Section 5 (Table 1's note)", paper_value=1.0), at_least_two))
    specs.append(ClaimSpec(Claim(
        NAME, "S6.successor-majority",
        "most errors are failed successor soundness or completeness tests",
        "the majority (Figure 4, plot only)", "all models and domains, w/ val",
        "Section 6.1; Figure 4", Comparison.ABOVE, threshold=0.5), successor_share))
    specs.append(ClaimSpec(Claim(
        NAME, "S6.rare-categories",
        "no parse errors and no slow goal tests; 1 goal exception, 3 search timeouts and 2 "
        "slow successor functions in all runs", "0, 0, 1, 3, 2", "all models and domains",
        "Section 6.1", paper_value=0.0, scale=Scale.NUMBER,
        needs="the counts over the paper's 5 models x 5 domains x 5 repeats x 2 settings; "
              "a count of a different number of runs is not comparable")))
    specs.append(ClaimSpec(Claim(
        NAME, "S5.consistent-models",
        "the performance is consistent across language models of varying sizes",
        "no single best model (Table 1, Figure 2)", "five models", "Section 5",
        paper_value=0.0, scale=Scale.NUMBER, needs=f"several real models at {USER_MODEL}"),
        across=across_models))
    return tuple(specs)


# ----- the protocol ----------------------------------------------------------------------
def plans(request: RunRequest) -> list[SweepPlan]:
    """The paper's protocol: the five domains, 5 repeats (seeds 0-4), w/ val and
    w/o val, the whole evaluation sets, the paper's budgets and limits (the
    method's defaults). Quick: the 24 Game, seeds 0 and 1, w/ and w/o val,
    the first 20 evaluation instances, 5 s a search. ``request.limit``: the
    first N evaluation instances of each domain (a domain is one dataset
    instance here, so the limit is on what a run is measured on), in the quick
    subset or the full protocol."""
    backends = list(request.backends)
    eval_limit = request.limit or (QUICK_LIMIT if request.quick else None)
    sized = {"eval_limit": eval_limit} if eval_limit else {}
    if request.quick:
        extra = {**sized, "search_limit": 5.0}
        return [SweepPlan([NAME], [f"autotos_{d}" for d in QUICK_DOMAINS], backends,
                          [{"method": NAME, "partial_check": p, **extra} for p in (True, False)],
                          list(QUICK_SEEDS))]
    return [SweepPlan([NAME], [f"autotos_{d}" for d in DOMAINS], backends,
                      [{"method": NAME, "partial_check": p, **sized} for p in (True, False)],
                      [0, 1, 2, 3, 4])]


PAPER = StorePaper(
    name=NAME,
    title="Automating Thought of Search: A Journey Towards Soundness and Completeness "
          "(AutoToS)",
    quick=f"the 24 Game, repeats (seeds) {', '.join(map(str, QUICK_SEEDS))}, "
          f"w/ and w/o val, the first {QUICK_LIMIT} evaluation instances, 5 s a search "
          f"({2 * len(QUICK_DOMAINS) * len(QUICK_SEEDS)} units a model); the full protocol "
          "runs all five domains, 5 repeats, w/ and w/o val, on the whole evaluation sets "
          "with the paper's 600 s a search",
    controlled="controlled-autotos",
    committed=(STUDY,),
    specs=_claims(),
    plans=plans,
    commands={STUDY: STUDY_COMMAND},
)

__all__ = ["PAPER", "plans", "runs"]
