"""The task format's shared parts: k-reveal, the oracle, matching and the
resource decider."""

from __future__ import annotations

import pytest

from veriplan.core.verdict import FindingKind
from veriplan.domains.hidden import HiddenTask, Latent, Oracle, resource_decider
from veriplan.domains.hidden.task import mentions, tokens, words
from veriplan.errors import ConfigError


def missing(judgement):
    """The (step, item) pairs the decider found using an item the user lacks."""
    return [(f.step, f.subject) for f in judgement.findings
            if f.kind is FindingKind.MISSING_ITEM]


def _task(**kw) -> HiddenTask:
    latent = (
        Latent("p1", "you have butter", "butter", False, ("margarine", "vegetable oil")),
        Latent("p2", "you have a whisk", "whisk", True, (), "equipment"),
        Latent("p3", "you have sugar", "sugar", False, ("honey",)),
        Latent("p4", "you have eggs", "eggs", True),
        Latent("p5", "you have an oven", "oven", True, (), "equipment"),
    )
    base = dict(id="t1", family="recipes", goal="make cookies", known=("you have flour",),
                latent=latent, constraints=("use only what you have or an allowed substitute",),
                reference=("Cream the margarine and honey.",), decider=resource_decider,
                resources=("flour", "butter", "whisk", "sugar", "brown sugar", "eggs", "oven",
                           "margarine", "vegetable oil", "honey"))
    base.update(kw)
    return HiddenTask(**base)


def test_k_reveal_is_deterministic_for_every_k():
    t = _task()
    for k in range(t.m + 1):
        a, b = t.variant(k, seed=3), t.variant(k, seed=3)
        assert a.revealed == b.revealed and a.hidden == b.hidden
        assert len(a.revealed) == k and len(a.hidden) == t.m - k
        assert set(a.revealed) | set(a.hidden) == set(t.latent)
    assert t.variant(t.m + 4).hidden == ()  # k above m reveals all
    seeds = {tuple(p.id for p in t.variant(2, seed=s).revealed) for s in range(20)}
    assert len(seeds) > 1  # the seed chooses


def test_negative_k_is_refused():
    with pytest.raises(ConfigError):
        _task().variant(-1)


def test_prompt_facts_state_the_truth_and_substitutes():
    facts = _task().variant(5).prompt_facts()
    assert "you have flour" in facts and "you have eggs" in facts
    assert any(f.startswith("not so: you have butter") and "margarine" in f for f in facts)


def test_oracle_answers_from_the_truth_with_substitutes_and_counts_calls():
    o = Oracle(_task())
    yes = o.ask("Do you have eggs?")
    assert yes.status == "yes" and yes.about == "p4"
    no = o.ask("Is there any butter in the fridge?")
    assert no.status == "no" and no.substitutes == ("margarine", "vegetable oil")
    assert "margarine" in no.text
    unknown = o.ask("Do you have a stand mixer?")
    assert unknown.status == "unknown" and not unknown.informative
    assert o.calls == 3 and [q for q, _ in o.log][0] == "Do you have eggs?"


def test_matching_prefers_the_most_specific_subject():
    t = _task(latent=(Latent("a", "you have sugar", "sugar", True),
                      Latent("b", "you have brown sugar", "brown sugar", False, ("honey",))))
    assert Oracle(t).ask("Do you have brown sugar?").about == "b"
    assert Oracle(t).ask("Do you have sugar?").about == "a"


def test_fact_aliases_match_in_word_order_and_atoms_exactly():
    t = _task(latent=(Latent("p1", "the red block is on top of the blue block", "(on a b)",
                             True, (), "fact", ("the red block is on top of the blue block",)),))
    o = Oracle(t)
    assert o.ask("Is (on a b) true?").status == "yes"
    assert o.ask("Is the red block on top of the blue block?").status == "yes"
    assert o.ask("Is the blue block on top of the red block?").status == "unknown"
    assert o.ask("Is (on b a) true?").status == "unknown"


def test_plurals_share_a_key():
    for a, b in [("eggs", "egg"), ("tomatoes", "tomato"), ("berries", "berry"),
                 ("cookies", "cookie"), ("peaches", "peach"), ("glasses", "glass"),
                 ("knives", "knife"), ("boxes", "box")]:
        assert words(a) == words(b), (a, b)
    assert tokens("location_1_0 and the truck") == ("location_1_0", "truck")
    assert mentions("Beat the eggs.", "egg") and not mentions("Add the eggplant.", "egg")


def test_resource_decider_flags_missing_resources_unless_substituted():
    t = _task()
    assert not t.decide(["Cream the butter and honey."]).valid
    v = t.decide(["Preheat the oven.", "Cream the butter with a whisk."])
    assert missing(v) == [(2, "butter")]
    assert missing(t.decide(["Cream the margarine with a whisk."])) == []
    # naming the substitute too does not make the step the adaptation (issue 30)
    assert missing(t.decide(["Cream the butter (use vegetable oil instead)."])) == [(1, "butter")]
    assert missing(t.decide(["Cream the vegetable oil (use it instead of butter)."])) == []


def test_a_missing_name_inside_a_held_longer_name_is_not_used():
    t = _task()
    assert missing(t.decide(["Stir in the brown sugar."])) == []
    assert missing(t.decide(["Stir in the brown sugar and the sugar."])) == [(1, "sugar")]
