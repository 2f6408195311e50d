"""The method contract: per-run usage from sessions (exact under concurrent
workers), settings checked for every registered method from Python and the
command line, and one transcript schema that ``trace`` prints for every method."""

from __future__ import annotations

import contextlib
import dataclasses
import re
import threading
import typing
from dataclasses import dataclass

import pytest

from tests.conftest import EXAMPLES
from veriplan.bench.runner import run_sweep
from veriplan.bench.store import RunStore
from veriplan.bench.units import BackendSpec, SweepPlan
from veriplan.cli import main
from veriplan.errors import ConfigError
from veriplan.llm import LLM, ScriptedBackend
from veriplan.llm.types import LLMRequest, Message
from veriplan.methods import (
    METHODS,
    PlanningProblem,
    Run,
    available_methods,
    get_method,
    register_method,
)

BUILTIN = ["autotos", "backprompt", "closed-loop", "cot", "direct", "drip", "react"]


# ----- sessions: exact per-run usage --------------------------------------------------------
def test_a_session_has_its_own_ledger_and_counts_in_its_client():
    llm = LLM(ScriptedBackend(fn=lambda r: "one two"))
    a, b = llm.session(), llm.session()
    a.complete(LLMRequest.of("x"))
    b.complete(LLMRequest.of("x"))
    b.complete(LLMRequest.of("x"))
    assert len(a.usage.calls) == 1 and len(b.usage.calls) == 2 and len(llm.usage.calls) == 3
    assert a.backend is llm.backend and a._slots is llm._slots and a.cache is llm.cache


@dataclass(frozen=True)
class CountingConfig:
    seed: int = 0


def _calls_for(name: str) -> int:
    return 1 + int(re.search(r"(\d+)$", name).group(1)) % 4  # 1..4, differs per instance


def counting(problem: PlanningProblem, llm, config, *, observer=None):
    """A method whose number of calls (and answer lengths) depend on the instance."""
    run = Run("counting", llm)
    for i in range(_calls_for(problem.name)):
        run.llm.complete(LLMRequest((Message("user", f"{problem.name} call {i}"),),
                                    seed=config.seed))
    return run.result(verified=False, plan=[])


def test_per_unit_usage_is_exact_with_four_workers(tmp_path, data_dir):
    register_method("counting", counting, CountingConfig)
    try:
        barrier = threading.Barrier(4, timeout=0.5)

        def answer(request: LLMRequest) -> str:
            with contextlib.suppress(threading.BrokenBarrierError):
                barrier.wait()  # hold calls of different units in flight together
            i = int(request.messages[0].content.rsplit(" ", 1)[1])
            return " ".join(["w"] * (i + 1))

        spec = BackendSpec.of("scripted")
        plan = SweepPlan(["counting"], ["blocksworld_3"], [spec], [{}], [0, 1], 12)
        progress = run_sweep(plan, tmp_path, data_root=data_dir, workers=4,
                             llms={spec: LLM(ScriptedBackend(fn=answer))})
        assert progress.done == 24 and progress.errors == 0
        records = list(RunStore(tmp_path).records())
        seen = set()
        for rec in records:
            n = _calls_for(f"blocksworld_3/{rec.instance}")
            # each prompt is 3 words; the answer to call i has i + 1 words
            assert rec.llm_calls == n, rec.instance
            assert rec.tokens == sum(3 + i + 1 for i in range(n)), rec.instance
            seen.add(n)
        assert seen == {1, 2, 3, 4}
    finally:
        METHODS.unregister("counting")


# ----- settings: a wrong key or value is rejected for every method ----------------------------
def test_every_builtin_method_is_registered():
    assert set(BUILTIN) <= set(available_methods())


def _wrong_value(hint: object) -> object:
    base = typing.get_args(hint)[0] if typing.get_args(hint) else hint
    return 1.5 if base is str else "not-a-number" if base in (int, float) else "maybe"


@pytest.mark.parametrize("name", BUILTIN)
def test_wrong_key_and_wrong_values_are_rejected_from_python(name):
    spec = get_method(name)
    with pytest.raises(ConfigError, match=f"method {name} has no setting 'no_such_setting'"):
        spec.make_config({"no_such_setting": "1"})
    hints = typing.get_type_hints(spec.config_cls)
    for f in dataclasses.fields(spec.config_cls):
        bad = _wrong_value(hints[f.name])
        with pytest.raises(ConfigError, match=f.name):
            spec.make_config({f.name: bad})
        with pytest.raises(ConfigError, match=f.name):  # the Config itself, no registry
            spec.config_cls(**{f.name: bad if not isinstance(bad, str) or hints[f.name]
                               is not str else 1.5})
    assert spec.make_config({}) == spec.config_cls()


@pytest.mark.parametrize("options", [
    {"ablation": "nonsense"}, {"max_attempts": "0"}, {"fallback": "dfs"},
])
def test_closed_loop_values_are_checked(options):
    with pytest.raises(ConfigError, match="method closed-loop"):
        get_method("closed-loop").make_config(options)


SOLVE = ["solve", "--domain", str(EXAMPLES / "blocks-domain.pddl"), "--problem",
         str(EXAMPLES / "blocks-problem.pddl"), "--backend", "scripted", "--no-cache"]


@pytest.mark.parametrize("name", [m for m in BUILTIN if m != "autotos"])
def test_solve_rejects_a_wrong_setting_for_every_method(name, capsys):
    assert main([*SOLVE, "--method", name, "--config", "no_such_setting=1"]) == 2
    err = capsys.readouterr().err
    assert f"method {name} has no setting 'no_such_setting'" in err and "settings are" in err


@pytest.mark.parametrize("config", ["ablation=nonsense", "max_attempts=0"])
def test_solve_rejects_a_wrong_value_for_the_default_method(config, capsys):
    assert main([*SOLVE, "--config", config]) == 2
    assert "method closed-loop" in capsys.readouterr().err


def test_solve_says_which_methods_take_pddl_tasks(capsys):
    assert main([*SOLVE, "--method", "autotos"]) == 2
    assert "does not plan for a PDDL task" in capsys.readouterr().err


@pytest.mark.parametrize("name", BUILTIN)
def test_bench_rejects_a_wrong_setting_for_every_method(name, tmp_path, data_dir, capsys):
    dataset = "autotos_24game" if name == "autotos" else "blocksworld_3"
    code = main(["bench", name, "--dataset", dataset, "--data-dir", str(data_dir),
                 "--backend", "scripted", "--config", "no_such_setting=1", "--out",
                 str(tmp_path)])
    assert code == 2 and "has no setting 'no_such_setting'" in capsys.readouterr().err


# ----- one transcript schema: trace prints each call's verdict ------------------------------
def _trace(tmp_path, data_dir, capsys, method, dataset, answer, config=None):
    spec = BackendSpec.of("scripted")
    plan = SweepPlan([method], [dataset], [spec], [config or {}], [0], 1)
    run_sweep(plan, tmp_path, data_root=data_dir,
              llms={spec: LLM(ScriptedBackend(fn=answer))})
    rec = next(RunStore(tmp_path).records())
    assert rec.status == "done", rec.error
    assert main(["trace", rec.id, "--dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    verdicts = [line for line in out.splitlines() if line.startswith("=> ")]
    calls = re.findall(r"^--- call \d+: ", out, re.M)
    assert rec.llm_calls > 0 and len(calls) == rec.llm_calls
    assert "None" not in "\n".join(verdicts) and all(len(v) > 4 for v in verdicts)
    return rec, out, verdicts


def test_trace_prints_closed_loop_verdicts(tmp_path, data_dir, capsys):
    rec, out, verdicts = _trace(tmp_path, data_dir, capsys, "closed-loop", "blocksworld_3",
                                lambda r: "(pick-up a)\n(stack a a)")
    assert len(verdicts) == rec.llm_calls == 2  # the paper's budget: 2 attempts
    assert all(v.startswith("=> not valid: ") for v in verdicts)


def test_trace_prints_drip_verdicts(tmp_path, data_dir, capsys):
    rec, out, verdicts = _trace(tmp_path, data_dir, capsys, "drip", "blocksworld_hard",
                                lambda r: "fly to the moon")
    # one verdict per decomposition call, and the final tree's verdict from the validator
    assert len(verdicts) == rec.llm_calls + 1
    assert all("-> (nothing usable)" in v for v in verdicts[:-1])
    assert verdicts[-1].startswith("=> not valid: ")


def test_trace_prints_autotos_verdicts(tmp_path, data_dir, capsys):
    rec, out, verdicts = _trace(tmp_path, data_dir, capsys, "autotos", "autotos_24game",
                                lambda r: "I would rather not write code.")
    assert rec.llm_calls == 10  # the successor function's budget of 10 calls, all unparsed
    assert sum(v.startswith("=> not valid: parse_error") for v in verdicts) == 10


# ----- a method from outside the package, through the entry point ---------------------------
def test_a_method_from_an_entry_point_runs_in_bench_and_solve(tmp_path, data_dir, monkeypatch,
                                                              capsys):
    from importlib.metadata import EntryPoint

    import veriplan.registry

    real = veriplan.registry.entry_points

    def entry_points(group):
        extra = [EntryPoint("greedy", "tests.methods.greedy_plugin", "veriplan.methods")]
        return [*real(group=group), *(extra if group == "veriplan.methods" else [])]

    monkeypatch.setattr(veriplan.registry, "entry_points", entry_points)
    assert "greedy" in available_methods()
    try:
        assert main(["bench", "greedy", "--dataset", "blocksworld_3", "--data-dir",
                     str(data_dir), "--backend", "scripted", "--limit", "2", "--out",
                     str(tmp_path)]) == 0
        records = list(RunStore(tmp_path).records())
        assert len(records) == 2 and all(r.verified and r.solved_by == "search"
                                         for r in records)
        assert main([*SOLVE, "--method", "greedy"]) == 0
        assert "found by search, not by the model" in capsys.readouterr().out
        assert main([*SOLVE, "--method", "greedy", "--config", "depth=3"]) == 2
    finally:
        METHODS.unregister("greedy")
