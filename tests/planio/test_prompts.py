"""PlanBench prompts rendered from a task reproduce PlanBench's statements."""

from __future__ import annotations

import json

from veriplan.pddl.parser import read_domain, read_problem
from veriplan.pddl.task import Task
from veriplan.planio import PlanBenchConfig, parse_plan, render_prompt
from veriplan.planio.planbench import render_statement


def test_statements_match_recorded_queries(planbench):
    for resp, dom, probs, cfgname in [
        ("blocksworld__gpt-4_chat__one_shot.json", "blocksworld/generated_domain.pddl",
         "blocksworld/generated_basic", "blocksworld.yaml"),
        ("mystery_blocksworld__gpt-4_chat__one_shot.json",
         "blocksworld/mystery/generated_domain.pddl", "blocksworld/mystery/generated_basic",
         "mystery_blocksworld.yaml"),
    ]:
        data = json.loads((planbench / "responses" / resp).read_text())
        domain = read_domain(planbench / "instances" / dom)
        cfg = PlanBenchConfig.from_yaml(planbench / "configs" / cfgname)
        checked = 0
        for rec in data["instances"]:
            if not rec["query"].rstrip().endswith("[PLAN]"):
                # Blocksworld instance 12's recorded query has text appended after
                # [PLAN] (its recorded response is empty): not a PlanBench prompt.
                assert rec["instance_id"] == 12
                continue
            checked += 1

            def task(i, domain=domain, probs=probs):
                return Task(domain, read_problem(
                    planbench / "instances" / probs / f"instance-{i}.pddl", domain))
            t = task(rec["instance_id"])
            query = rec["query"]
            # The statement to solve closes the recorded query.
            ours = render_statement(t.problem.init, t.problem.goal, cfg)
            assert query.rstrip("\n").endswith(ours.strip("\n")), rec["instance_id"]
            # The one-shot example, with the example's plan as recorded in the query.
            ex_ids = rec.get("example_instance_id") or rec["example_instance_ids"]
            ex_id = (json.loads(ex_ids) if isinstance(ex_ids, str) and ex_ids.startswith("[")
                     else ex_ids)
            ex_id = ex_id[0] if isinstance(ex_id, list) else ex_id
            ex = task(ex_id)
            first = query.index("[STATEMENT]")
            ex_plan_text = query[query.index("[PLAN]", first) + 6: query.index("[PLAN END]")]
            ex_plan = parse_plan(ex_plan_text, ex, format="planbench", config=cfg)
            assert ex_plan.ok
            prompt = render_prompt(t, cfg, example=(ex, ex_plan.steps))
            assert prompt[prompt.index("[STATEMENT]"):].rstrip("\n") == \
                query[first:].rstrip("\n")
        assert checked >= 499


def test_zero_shot_prompt(planbench):
    domain = read_domain(planbench / "instances/blocksworld/generated_domain.pddl")
    t = Task(domain, read_problem(
        planbench / "instances/blocksworld/generated_basic/instance-1.pddl", domain))
    cfg = PlanBenchConfig.from_yaml(planbench / "configs/blocksworld.yaml")
    prompt = render_prompt(t, cfg)
    assert prompt.startswith("I am playing with a set of blocks")
    assert prompt.count("[STATEMENT]") == 1 and prompt.endswith("[PLAN]")
    assert "the orange block is on top of the blue block" in prompt


def test_logistics_prompt_leaves_out_the_facts_its_config_gives_no_words(planbench):
    """Logistics' config declares its type predicates with empty templates: PlanBench
    leaves those facts out of the text; every other fact is in its words."""
    domain = read_domain(planbench / "instances/logistics/generated_domain.pddl")
    t = Task(domain, read_problem(
        planbench / "instances/logistics/generated_basic/instance-2.pddl", domain))
    cfg = PlanBenchConfig.from_yaml(planbench / "configs/logistics.yaml")
    prompt = render_prompt(t, cfg)
    statement = prompt[prompt.rindex("[STATEMENT]"):]
    assert "location_0_0 is an airport" in statement
    assert "location_0_0 is in the city city_0" in statement
    assert "package_0 is at location_0_0" in statement.split("My goal is")[1]
    assert ", ," not in statement and "that ," not in statement and " and ." not in statement
    typed = [a for a in t.problem.init
             if a.pred in ("truck", "airplane", "city", "obj", "location")]
    assert typed and all(cfg.describe_atom(a) == "" for a in typed)
    facts = statement.split("I have that, ")[1].split(".\n")[0]
    said = facts.replace(" and ", ", ").split(", ")
    assert len(said) == len(t.problem.init) - len(typed)
