"""GENERATEHYPOTHESES (appendix B.1): the model proposes candidate plans as
JSON (a schema per request: llama.cpp's grammar, OpenAI's ``response_format``
or an Anthropic tool), each with its actions, the preconditions it relies on
with their expected values, and a score. Items are read one by one: an item
that is not a plan is counted and the others are kept. Pre(h) is completed
from the action model (:func:`veriplan.methods.aec.verifier.derive`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypedDict

from veriplan.llm.parsing import parse_structured
from veriplan.llm.types import LLMRequest, Message
from veriplan.methods.aec.domain import EnvModel, Key
from veriplan.methods.aec.repair import RuleBook
from veriplan.methods.aec.state import GroundedStore, Hypothesis
from veriplan.methods.aec.verifier import derive
from veriplan.methods.records import Entry

if TYPE_CHECKING:
    from veriplan.core.jsonvalue import JSONValue
    from veriplan.llm.client import LLM
    from veriplan.llm.types import LLMResponse

SYSTEM = ("You plan for an agent in a text environment. Facts that were not observed are "
          "unknown: never state them as observed. Answer only with JSON in the requested form.")

PRECONDITION = {"type": "object", "required": ["predicate", "args", "value"], "properties": {
    "predicate": {"type": "string"}, "args": {"type": "array", "items": {"type": "string"}},
    "value": {"type": "boolean"}}}
PLAN = {"type": "object", "required": ["actions"], "properties": {
    "actions": {"type": "array", "items": {"type": "string"}},
    "preconditions": {"type": "array", "items": PRECONDITION},
    "score": {"type": "number"}}}


def plans_schema(k: int, max_preconditions: int = 0, max_actions: int = 0
                 ) -> dict[str, JSONValue]:
    """Up to ``k`` plans, each with at most ``max_preconditions`` stated
    preconditions and ``max_actions`` actions (0: any number). A plan longer
    than the episode's whole step budget can never be carried out, so the
    episode passes that budget: the grammar then closes a looping list."""
    plan = PLAN
    if max_preconditions:
        pre = dict(PLAN["properties"]["preconditions"], maxItems=max_preconditions)
        plan = dict(PLAN, properties=dict(PLAN["properties"], preconditions=pre))
    if max_actions:
        acts = dict(PLAN["properties"]["actions"], maxItems=max_actions)
        plan = dict(plan, properties=dict(plan["properties"], actions=acts))
    return {"type": "object", "required": ["plans"],
            "properties": {"plans": {"type": "array", "items": plan, "maxItems": k}}}


ACTIONS_SCHEMA = {"type": "object", "required": ["actions"],
                  "properties": {"actions": {"type": "array", "items": {"type": "string"}}}}


class NotAPlan(ValueError):
    """An answer item that is not a plan (counted; the episode goes on)."""


@dataclass(frozen=True)
class Proposal:
    actions: tuple[str, ...]
    stated: dict[Key, bool]
    score: float
    dropped: int = 0  # preconditions outside the vocabulary


def _clean(text: object) -> str:
    return " ".join(str(text).split())


def read_plan(item: JSONValue, vocabulary: Mapping[str, int],
              well_formed: Callable[[Key], bool] | None = None) -> Proposal:
    if not isinstance(item, Mapping):
        raise NotAPlan("a plan is not an object")
    raw = item.get("actions")
    if not isinstance(raw, list) or not raw:
        raise NotAPlan("a plan has no list of actions")
    actions = tuple(_clean(a) for a in raw if isinstance(a, str) and a.strip())
    if len(actions) != len(raw):
        raise NotAPlan("an action is not a non-empty string")
    stated: dict[Key, bool] = {}
    dropped = 0
    for p in item.get("preconditions") or []:
        if not isinstance(p, Mapping) or not isinstance(p.get("predicate"), str) or \
                not isinstance(p.get("args"), list) or not isinstance(p.get("value"), bool):
            dropped += 1
            continue
        pred = _clean(p["predicate"]).lower()
        args = tuple(_clean(a) for a in p["args"])
        if vocabulary and vocabulary.get(pred) != len(args) or \
                well_formed is not None and not well_formed((pred, args)):
            dropped += 1  # not a predicate the grounder (and the queries) can ever settle
            continue
        stated[(pred, args)] = p["value"]
    score = item.get("score", 0.5)
    if isinstance(score, bool) or not isinstance(score, int | float):
        score = 0.5
    return Proposal(actions, stated, min(1.0, max(0.0, float(score))), dropped)


def read_plans(value: JSONValue, k: int, vocabulary: Mapping[str, int],
               well_formed: Callable[[Key], bool] | None = None
               ) -> tuple[list[Proposal], list[str]]:
    """The plans of an answer (at most ``k``) and why items were not read."""
    items = value.get("plans") if isinstance(value, Mapping) else value
    if isinstance(items, Mapping):
        items = [items]
    if not isinstance(items, list):
        return [], ["the answer holds no list of plans"]
    out, bad = [], []
    for item in items[:k]:
        try:
            out.append(read_plan(item, vocabulary, well_formed))
        except NotAPlan as exc:
            bad.append(str(exc))
    return out, bad


def build(proposals: Sequence[Proposal], w: GroundedStore, rules: RuleBook, model: EnvModel,
          start: int = 0) -> list[Hypothesis]:
    """Hypotheses with Pre(h) completed from the action model, from w."""
    out = []
    for i, p in enumerate(proposals):
        pre, notes, steps = derive(p.actions, w.state, rules, model.actions, p.stated)
        out.append(Hypothesis(p.actions, pre, p.score, start + i,
                              frozenset(k for k in p.stated if k in pre), notes, steps))
    return out


def ask_json(llm: LLM, log: list[Entry], role: str, prompt: str,
             schema: Mapping[str, JSONValue], *, name: str, temperature: float,
             max_tokens: int, seed: int) -> tuple[JSONValue, str | None]:
    """One structured request; the call goes to ``log``. Returns the JSON value
    (read item by item when the whole does not fit the schema) and the error."""
    request = LLMRequest((Message("system", SYSTEM), Message("user", prompt)),
                         temperature=temperature, max_tokens=max_tokens, seed=seed,
                         schema=schema, schema_name=name)
    response = llm.complete(request)
    value, error = read_json(response.text, schema)
    if value is None and response.finish_reason == "length":
        error = (f"the answer was cut off at the token limit ({max_tokens}) before its JSON "
                 "closed")
    calls = sum(e.call is not None for e in log)
    log.append(Entry(calls + 1, role, prompt, response.text, response.cached,
                     data=usage(response)))
    return value, error


def read_json(text: str, schema: Mapping[str, JSONValue]) -> tuple[JSONValue, str | None]:
    """The JSON value of an answer (read item by item when the whole does not
    fit the schema) and the error."""
    value, error = parse_structured(text, schema)
    if value is None:
        value, _ = parse_structured(text, {})
    return value, error


def reuse_json(log: list[Entry], role: str, prompt: str, schema: Mapping[str, JSONValue],
               text: str, round_: int, error: str | None) -> tuple[JSONValue, str | None]:
    """An earlier round's answer to this very prompt, taken again without a
    call (at temperature 0 the model would answer the same); recorded as such."""
    value, err = read_json(text, schema)
    log.append(Entry(None, role, prompt, text, True,
                     verdict=f"the same prompt as round {round_}: its answer again, no call; ",
                     data={"reused_from_round": round_}))
    return value, error if value is None else err


def ask_json_once(llm: LLM, log: list[Entry], answers: dict[str, tuple[str, int, str | None]],
                  role: str, prompt: str, schema: Mapping[str, JSONValue], *, name: str,
                  temperature: float, max_tokens: int, seed: int, round_: int
                  ) -> tuple[JSONValue, str | None]:
    """:func:`ask_json`, except that at temperature 0 a prompt already in
    ``answers`` (this episode's prompt -> answer) takes its earlier answer
    (:func:`reuse_json`) instead of a call; a new answer is added to ``answers``."""
    earlier = answers.get(prompt) if temperature == 0 else None
    if earlier is not None:  # greedy decoding: the same prompt, the same answer
        return reuse_json(log, role, prompt, schema, *earlier)
    value, error = ask_json(llm, log, role, prompt, schema, name=name,
                            temperature=temperature, max_tokens=max_tokens, seed=seed)
    answers[prompt] = (log[-1].response, round_, error)
    return value, error


def reuse_text(log: list[Entry], role: str, prompt: str, text: str, turn: int) -> str:
    """An earlier turn's answer to this very prompt, taken again without a call
    (temperature 0: the model would answer the same); recorded as such."""
    log.append(Entry(None, role, prompt, text, True,
                     verdict=f"the same prompt as turn {turn}: its answer again, no call; ",
                     data={"reused_from_round": turn}))
    return text


class Usage(TypedDict):
    """A call's token counts and seconds, as its transcript entry keeps them."""

    prompt_tokens: int
    completion_tokens: int
    seconds: float


def usage(response: LLMResponse) -> Usage:
    """A call's token counts and seconds, for its transcript entry."""
    return {"prompt_tokens": response.prompt_tokens,
            "completion_tokens": response.completion_tokens,
            "seconds": round(response.latency, 3)}


def ask_text(llm: LLM, log: list[Entry], role: str, prompt: str, *, temperature: float,
             max_tokens: int, seed: int) -> str:
    """One plain-text request (ReAct's turns); the call goes to ``log``."""
    request = LLMRequest((Message("user", prompt),), temperature=temperature,
                         max_tokens=max_tokens, seed=seed)
    response = llm.complete(request)
    calls = sum(e.call is not None for e in log)
    log.append(Entry(calls + 1, role, prompt, response.text, response.cached,
                     data=usage(response)))
    return response.text


__all__ = ["ACTIONS_SCHEMA", "NotAPlan", "Proposal", "ask_json", "ask_json_once", "ask_text",
           "Usage", "build", "plans_schema", "read_json", "read_plan", "read_plans", "reuse_json",
           "reuse_text", "usage"]
