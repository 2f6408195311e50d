"""PrOntoQA (AutoToS): true-or-false questions answered by deduction. The
sentences are read into rules (x, y) and a starting fact; BFS looks for the
queried property, then for its negation; the answer this implies is checked
against the dataset's, and every step of the proof against the rules."""

from __future__ import annotations

import json
import re
from pathlib import Path

from veriplan.domains.autotos import prontoqa_reference
from veriplan.domains.autotos.base import (
    DomainData,
    Instance,
    SearchDomain,
    data_folder,
    read_records,
)
from veriplan.errors import DataError

# adjectives that end like plurals
_NOT_PLURAL = {"carnivorous", "herbivorous"}


def singular(word: str) -> str:
    """Our own singular for the dataset's nouns (butterflies, protostomes,
    mammals); adjectives pass through."""
    if word in _NOT_PLURAL:
        return word
    if " " in word:
        head, last = word.rsplit(" ", 1)
        return f"{head} {singular(last)}"
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "shes", "ches", "xes", "zes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is", "ous")):
        return word[:-1]
    return word


def _predicate(text: str) -> tuple[str, bool]:
    text = text.strip().lower()
    positive = not text.startswith("not ")
    text = text.removeprefix("not ")
    text = re.sub(r"^(a|an) ", "", text)
    return text, positive


def parse_rule(sentence: str) -> tuple[str, str]:
    """(x, y) for "Every X is Y", "Each X is Y", "Xs are Ys" (negated: "not-y")."""
    s = sentence.strip().rstrip(".")
    m = re.match(r"^(?:Every|Each) (.+?) is (.+)$", s)
    if m:
        cond, (eff, positive) = m.group(1).lower(), _predicate(m.group(2))
    else:
        m = re.match(r"^(.+?) are (.+)$", s)
        if not m:
            raise DataError(f"PrOntoQA: cannot read the rule {sentence!r}")
        cond = singular(m.group(1).lower())
        eff, positive = _predicate(m.group(2))
        eff = singular(eff)
    return cond, eff if positive else f"not-{eff}"


def parse_fact(sentence: str) -> tuple[str, str, bool]:
    obj, _, pred = sentence.strip().rstrip(".").partition(" is ")
    name, positive = _predicate(pred)
    return obj.lower(), name, positive


def parse(example: dict) -> tuple[str, list[list[str]], str, bool]:
    """(starting fact, rules, target property, whether the query is positive)."""
    sentences = [s for s in example["question"].split(". ") if s.strip()]
    _, start, _ = parse_fact(sentences[-1])
    rules = sorted({parse_rule(s) for s in sentences[:-1]})
    query = example["query"].removeprefix("True or false: ")
    _, target, positive = parse_fact(query)
    return start, [list(r) for r in rules], target, positive


def key(state) -> frozenset:
    return frozenset(state)


WRONG_LENGTH = ("Invalid transition: wrong length. A successor must know exactly one fact "
                "more than its parent.")
ADVICE = ("Let's think step by step. First, explain in words why the successor function "
          "produced a successor whose length is not exactly one more than its parent's. "
          "Then write the complete Python code of the revised successor function, making "
          "sure that every successor knows exactly one fact more than its parent. Remember "
          "how you fixed earlier mistakes, if any. Keep the same function signature.")


def partial_check(parent, child) -> str | None:
    """The paper's check (Appendix A.4): a successor equal to its parent passes;
    any other must be one fact longer. Nothing else is checked."""
    if child == parent:
        return None
    if len(child) - len(parent) != 1:
        return WRONG_LENGTH
    return None


def show(state) -> str:
    """A state as the prompts write it: a set of facts."""
    if isinstance(state, list | set | frozenset | tuple) and all(
            isinstance(x, str) for x in state):
        return "{" + ", ".join(repr(x) for x in sorted(state)) + "}" if state else "set()"
    return repr(state)


def true_goal(instance: Instance, state) -> bool:
    return instance.meta["goal"] in set(state)


def validate(instance: Instance, path: list, strict: bool = False) -> str | None:
    """The paper's check: the fact the search reached (the queried property or
    its negation) answers the question as the dataset does. ``strict`` also
    checks the proof: it starts from the known fact and each step adds one fact
    by a rule whose condition is known."""
    if strict:
        rules = {tuple(r) for r in instance.meta["rules"]}
        if not path or set(path[0]) != {instance.meta["start"]}:
            return "the proof does not start from the known fact"
        for s, t in zip(path, path[1:]):
            new = set(t) - set(s)
            if not set(s) <= set(t) or len(new) != 1:
                return f"the step from {sorted(s)} to {sorted(t)} does not add exactly one fact"
            (fact,) = new
            if not any((x, fact) in rules for x in s):
                return f"no rule derives {fact!r} from {sorted(s)}"
    try:
        last = set(path[-1])
    except (TypeError, IndexError):
        return "the last state is not a set of facts"
    target = instance.meta["target"]
    if target in last:
        said = instance.meta["positive"]
    elif f"not-{target}" in last:
        said = not instance.meta["positive"]
    else:
        return "the search reached neither the queried property nor its negation"
    if said != instance.meta["answer"]:
        return f"the search answers {said}, the dataset's answer is {instance.meta['answer']}"
    return None


def _alternative(inst: Instance) -> Instance | None:
    target = inst.meta["target"]
    if inst.meta["goal"] != target:
        return None
    return Instance(inst.id, inst.init, {**inst.meta, "goal": f"not-{target}"})


def _instances(examples: list[dict], prefix: str) -> list[Instance]:
    out = []
    for i, e in enumerate(examples):
        start, rules, target, positive = parse(e)
        out.append(Instance(f"{prefix}-{i + 1}", [start], {
            "start": start, "rules": rules, "target": target, "goal": target,
            "positive": positive, "answer": e["answer"] == "True"}))
    return out


def load(root: Path) -> DomainData:
    d = data_folder(root, "prontoqa", "example_pool.json", "PrOntoQA")
    pool = json.loads((d / "example_pool.json").read_text())["example_pool"]
    units = json.loads((d / "unittests.json").read_text())["example_pool"]
    return DomainData(
        evaluation=_instances(pool, "prontoqa"), examples=_instances(units, "unit"),
        goals=[Instance(f"goal-{i}", x["state"], {"goal": x["goal"]})
               for i, x in enumerate(read_records(d / "prontoqa_goals.jsonl", lines=True))],
        non_goals=[Instance(f"non-goal-{i}", x["state"], {"goal": x["goal"]})
                   for i, x in enumerate(read_records(d / "prontoqa_non_goals.jsonl", lines=True))],
        successors=[(x["state"], x["successors"], {"rules": x["rules"]})
                    for x in read_records(d / "prontoqa_successors.jsonl", lines=True)])


DOMAIN = SearchDomain(
    name="prontoqa", algorithm="bfs", load=load, reference=prontoqa_reference, key=key,
    partial_check=partial_check, true_goal=true_goal, same=key, validate=validate,
    succ_args=lambda inst: ([tuple(r) for r in inst.meta["rules"]],),
    goal_args=lambda inst: (inst.meta["goal"],), decode=set,
    encode=lambda s: sorted(s), alternative=_alternative, succ_params=("rules",),
    goal_params=("target",), partial_advice=ADVICE, show=show)
