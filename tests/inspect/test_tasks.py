"""veriplan's PlanBench tasks run end to end in inspect with its mock model:
the scorer's verdicts, the method solver (back-prompting, the closed loop)
through inspect's model, and the tasks found by name through the entry point."""

from __future__ import annotations

import pytest
from inspect_ai import eval as inspect_eval

from tests.inspect.conftest import mock_model
from tests.inspect.scripts import WRONG
from veriplan.bench.datasets import load_dataset
from veriplan.core.plan import Step
from veriplan.errors import ConfigError
from veriplan.inspect.dataset import prompt_for
from veriplan.inspect.tasks import build, planbench_blocksworld
from veriplan.search import bfs


@pytest.fixture(scope="module")
def blocks(data_dir):
    """The first three Blocksworld instances and an optimal plan of each."""
    insts = load_dataset("blocksworld", data_dir).instances[:3]
    return [(i, [str(op) for op in bfs(i.task()).plan]) for i in insts]


def run(task, model, log_dir):
    [log] = inspect_eval(task, model=model, display="none", log_dir=str(log_dir))
    assert log.status == "success", log.error
    return {(s.id, s.epoch): s for s in log.samples}, log


def only_score(sample):
    [(name, score)] = sample.scores.items()
    assert name == "plan_validator"
    return score


def test_generate_scored_by_the_validator(blocks, data_dir, tmp_path):
    """PlanBench's prompt answered once: a correct plan in PlanBench's words is
    C with the validator's diagnosis, a plan whose first step cannot run is I
    naming that step, an answer with an unreadable line is I naming the line."""
    (good, good_plan), (bad, _), (unread, _) = blocks
    cfg = good.planbench_config()
    words = "\n".join(cfg.describe_step(Step.parse(s)) for s in good_plan)
    answers = {prompt_for(good): words + "\n[PLAN END]", prompt_for(bad): WRONG,
               prompt_for(unread): "unstack the red block from on top of the moon\n[PLAN END]"}
    samples, log = run(planbench_blocksworld(limit=3, data_dir=str(data_dir)),
                       mock_model(lambda prompt: answers[prompt]), tmp_path)
    assert log.eval.task == "veriplan/planbench_blocksworld"
    assert {k[0] for k in samples} == {good.id, bad.id, unread.id}

    ok = only_score(samples[(good.id, 1)])
    assert ok.value == "C"
    assert ok.explanation == f"the plan is valid: its {len(good_plan)} steps reach the goal"
    assert ok.answer.splitlines() == good_plan  # read back into PDDL steps
    assert ok.metadata["failed_step"] is None and ok.metadata["unread_lines"] == []

    wrong = only_score(samples[(bad.id, 1)])
    assert wrong.value == "I"
    assert wrong.metadata["failed_step"] == 1
    assert wrong.metadata["failed_action"] == "(stack a a)"
    assert "(holding a)" in wrong.metadata["unsatisfied"]  # the hand starts empty
    assert wrong.explanation.startswith("step 1 (stack a a)") and "(holding a)" in \
        wrong.explanation

    lost = only_score(samples[(unread.id, 1)])
    assert lost.value == "I"
    [line] = lost.metadata["unread_lines"]
    assert line["line"] == 1 and "moon" in line["text"]
    assert "could not be read" in lost.explanation
    # the input is veriplan's PlanBench prompt, one-shot with the previous instance
    assert samples[(good.id, 1)].input == prompt_for(good)
    assert samples[(good.id, 1)].input.count("[STATEMENT]") == 2


@pytest.mark.parametrize("method", ["backprompt", "closed-loop"])
def test_methods_run_inside_inspect(method, blocks, data_dir, tmp_path):
    """A veriplan method runs with inspect's model: a wrong plan, the
    verifier's feedback, a correct plan; every call is a model event of the
    sample, the messages are the method's transcript and the score is C."""
    (inst, plan), *_ = blocks
    samples, _ = run(planbench_blocksworld(method=method, limit=1, data_dir=str(data_dir)),
                     mock_model([WRONG, "\n".join(plan)]), tmp_path)
    sample = samples[(inst.id, 1)]
    score = only_score(sample)
    assert score.value == "C"
    run_md = score.metadata["method"]
    assert run_md["method"] == method and run_md["verified"] is True
    assert run_md["attempts"] == 2 and run_md["llm_calls"] == 2
    assert run_md["solved_by"] == "llm" and run_md["plan"] == plan
    assert len([e for e in sample.events if e.event == "model"]) == 2
    assert [m.role for m in sample.messages] == ["user", "assistant", "user", "assistant"]
    assert sample.messages[1].text == WRONG  # the mock ignores stop sequences
    assert sample.messages[2].text != sample.messages[0].text  # feedback or a repair prompt
    assert sample.output.completion.splitlines() == plan


def test_tasks_by_name_through_the_entry_point(blocks, data_dir, tmp_path):
    """``inspect eval veriplan/planbench_blocksworld -T method=closed-loop``:
    the name resolves through the inspect_ai entry point; a method that never
    gets a valid plan scores I with the method's own verdict beside."""
    (inst, _), *_ = blocks
    [log] = inspect_eval("veriplan/planbench_blocksworld", model=mock_model([WRONG] * 4),
                         task_args={"method": "closed-loop", "limit": 1,
                                    "data_dir": str(data_dir),
                                    "config": {"max_attempts": 2}},
                         display="none", log_dir=str(tmp_path))
    assert log.status == "success", log.error
    [sample] = log.samples
    score = only_score(sample)
    assert score.value == "I" and score.metadata["failed_step"] == 1
    assert score.metadata["method"]["verified"] is False
    assert score.metadata["method"]["llm_calls"] >= 1
    assert sample.id == inst.id


def test_every_planbench_set_builds(data_dir):
    """The four sets with their default prompts: PlanBench's words for
    Blocksworld (one-shot) and Mystery, PDDL for Logistics and Blocksworld-hard."""
    from veriplan.inspect.tasks import (
        planbench_blocksworld_hard,
        planbench_logistics,
        planbench_mystery,
    )

    blocks = planbench_blocksworld(limit=1, data_dir=str(data_dir)).dataset[0]
    assert blocks.input.count("[STATEMENT]") == 2 and "red block" in blocks.input
    mystery = planbench_mystery(limit=1, data_dir=str(data_dir)).dataset[0]
    assert mystery.input.count("[STATEMENT]") == 2 and "craves" in mystery.input
    for made, name in ((planbench_logistics, "logistics"),
                       (planbench_blocksworld_hard, "blocksworld_hard")):
        sample = made(limit=1, data_dir=str(data_dir)).dataset[0]
        assert "Domain:\n(define (domain" in sample.input and "[STATEMENT]" not in sample.input
        assert sample.id == load_dataset(name, data_dir).instances[0].id
        assert sample.metadata["dataset"] == name


def test_bad_settings_are_clear_errors(data_dir):
    with pytest.raises(ConfigError, match="no setting 'nope'"):
        build("blocksworld_3", method="backprompt", config={"nope": 1}, limit=1,
              data_dir=str(data_dir))
    with pytest.raises(ConfigError, match="takes 'hidden' problems"):
        build("blocksworld_3", method="sqbcp", limit=1, data_dir=str(data_dir))
    with pytest.raises(ConfigError, match="prompt 'yaml'"):
        build("blocksworld_3", prompt="yaml", limit=1, data_dir=str(data_dir))
