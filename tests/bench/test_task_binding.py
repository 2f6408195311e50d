"""The task channel (issue 33): the harness tells a TaskBound backend which
task each unit is about, for that unit only, and the controlled SQ-BCP model
then answers about exactly that task, where prompts alone cannot tell it
(how-to h007-v0 and -v1 have the same prompts word for word; hidden-fact PDDL
blocksworld/instance-14 has instance-255's until a fact is learned)."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field

import pytest

from veriplan.bench.datasets import load_dataset
from veriplan.bench.execute import execute
from veriplan.bench.units import Unit, canonical
from veriplan.errors import BackendError
from veriplan.llm import LLM
from veriplan.llm.binding import TaskBinding, TaskRef
from veriplan.llm.types import LLMRequest, LLMResponse, Message
from veriplan.methods import get_method
from veriplan.methods.sqbcp.controlled import AmbiguousTaskError, ControlledBackend

P0 = "sqbcp:p_hidden=0.0,acc=0.5,seed=0"
PINNED = {("sqbcp_howto", "howto-h007-v0"), ("sqbcp_howto", "howto-h007-v1"),
          ("sqbcp_pddl_hidden", "blocksworld/instance-14"),
          ("sqbcp_pddl_hidden", "blocksworld/instance-255"),
          ("sqbcp_howto", "howto-h001-v0")}


@dataclass
class Pinned:
    instances: dict[tuple[str, str], object]
    versions: dict[str, str]


@pytest.fixture(scope="module")
def pinned(data_dir) -> Pinned:
    instances, versions = {}, {}
    for name in {d for d, _ in PINNED}:
        ds = load_dataset(name, data_dir)
        versions[name] = ds.version
        for inst in ds.instances:
            if (name, inst.id) in PINNED:
                instances[name, inst.id] = inst
    assert set(instances) == PINNED
    return Pinned(instances, versions)


def _run(pinned: Pinned, backend, dataset: str, iid: str, method: str = "sqbcp",
         config: dict | None = None):
    cfg = config if config is not None else {"k": 1}
    typed = get_method(method).make_config(cfg)
    unit = Unit(method, dataset, iid, backend.name, backend.default_model,
                canonical({k: getattr(typed, k) for k in cfg}), 0)
    return execute(unit, pinned.instances[dataset, iid], LLM(backend), pinned.versions[dataset])


def _first_prompt(pinned: Pinned, dataset: str, iid: str) -> str:
    be = ControlledBackend(P0, tasks=[pinned.instances[dataset, iid].problem()])
    _run(pinned, be, dataset, iid)
    return be.requests[0].messages[-1].content


@pytest.mark.parametrize(("dataset", "iid", "twin"), [
    ("sqbcp_howto", "howto-h007-v1", "howto-h007-v0"),
    ("sqbcp_pddl_hidden", "blocksworld/instance-14", "blocksworld/instance-255")])
def test_a_unit_through_the_runner_gets_its_own_tasks_truth(pinned, data_dir, dataset, iid,
                                                              twin):
    # matching alone refuses: some prompt of this run fits the twin as well
    task = pinned.instances[dataset, iid].problem()
    both = [task, pinned.instances[dataset, twin].problem()]
    spec = get_method("sqbcp")
    with pytest.raises(AmbiguousTaskError, match=twin):
        spec.solve(task, LLM(ControlledBackend(P0, tasks=both)), spec.make_config({"k": 1}))
    backend = ControlledBackend(P0, data_dir=str(data_dir))
    rec = _run(pinned, backend, dataset, iid)
    assert rec.status == "done", rec.error
    assert rec.verified
    plan = json.loads(rec.result)["plan"]
    assert plan == list(pinned.instances[dataset, iid].problem().reference)
    assert plan != list(pinned.instances[dataset, twin].problem().reference)


def test_unbound_the_same_prompt_is_refused(pinned, data_dir):
    prompt = _first_prompt(pinned, "sqbcp_howto", "howto-h007-v1")
    assert prompt == _first_prompt(pinned, "sqbcp_howto", "howto-h007-v0")  # word for word
    backend = ControlledBackend(P0, data_dir=str(data_dir))
    with pytest.raises(AmbiguousTaskError, match="bind the task"):
        LLM(backend).complete(LLMRequest([Message("user", prompt)]))


@dataclass
class Spy:
    """A TaskBound backend in front of the controlled model: records the
    binding each request saw, and raises on request ``fail_at``."""

    inner: ControlledBackend
    fail_at: int | None = None
    seen: list[tuple[TaskRef | None, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.name, self.default_model = self.inner.name, self.inner.default_model
        self.binding = TaskBinding("spy")

    def bind_task(self, ref: TaskRef):
        return self.binding.bind(ref)

    def complete(self, request: LLMRequest) -> LLMResponse:
        self.seen.append((self.binding.current, request.messages[-1].content))
        if self.fail_at is not None and len(self.seen) > self.fail_at:
            raise BackendError("spy: failing on purpose")
        with self.inner.bind_task(self.binding.current) if self.binding.current \
                else _nothing():
            return self.inner.complete(request)


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def test_the_binding_is_cleared_after_a_unit_and_on_error(pinned, data_dir):
    ref = TaskRef("sqbcp_howto", "howto-h007-v1")
    spy = Spy(ControlledBackend(P0, data_dir=str(data_dir)))
    rec = _run(pinned, spy, ref.dataset, ref.instance)
    assert rec.verified and spy.seen and {r for r, _ in spy.seen} == {ref}
    assert spy.binding.current is None
    with pytest.raises(AmbiguousTaskError):  # the backend itself is unbound again
        spy.inner.complete(LLMRequest([Message("user", spy.seen[0][1])]))

    failing = Spy(ControlledBackend(P0, data_dir=str(data_dir)), fail_at=1)
    rec = _run(pinned, failing, ref.dataset, ref.instance)
    assert rec.status == "error" and "failing on purpose" in rec.error
    assert failing.seen[0][0] == ref
    assert failing.binding.current is None


def test_the_methods_prompts_are_the_same_with_and_without_the_binding(pinned, data_dir):
    # a task no other prompt fits, so the unbound model answers it too
    dataset, iid = "sqbcp_howto", "howto-h001-v0"
    task = pinned.instances[dataset, iid].problem()
    for method, config in (("sqbcp", {"k": 2}), ("self-ask", {}), ("hidden-react", {})):
        spy = Spy(ControlledBackend(P0, data_dir=str(data_dir)))
        bound_rec = _run(pinned, spy, dataset, iid, method, config)
        assert spy.seen and all(r == TaskRef(dataset, iid) for r, _ in spy.seen)
        plain = ControlledBackend(P0, tasks=[task])
        spec = get_method(method)
        spec.solve(task, LLM(plain), spec.make_config(config))
        assert [r.messages for r in spy.inner.requests] == [r.messages for r in plain.requests]
        assert bound_rec.status == "done", bound_rec.error


def test_two_threads_with_different_bindings_do_not_see_each_others(pinned, data_dir):
    prompt = _first_prompt(pinned, "sqbcp_howto", "howto-h007-v1")
    requests = [LLMRequest([Message("user", prompt)], sample_index=i) for i in range(4)]
    backend = ControlledBackend(P0, data_dir=str(data_dir))
    llm = LLM(backend)
    expected = {}
    for iid in ("howto-h007-v0", "howto-h007-v1"):
        with backend.bind_task(TaskRef("sqbcp_howto", iid)):
            expected[iid] = [llm.complete(r).text for r in requests]
    assert expected["howto-h007-v0"] != expected["howto-h007-v1"]

    barrier = threading.Barrier(2)
    got: dict[str, list[str]] = {}

    def unit(iid: str) -> None:
        with backend.bind_task(TaskRef("sqbcp_howto", iid)):
            barrier.wait()  # both bound before either asks
            answers = [llm.complete(requests[0]).text]
            # the client's own threads (complete_many) keep the caller's binding
            answers += [r.text for r in llm.complete_many(requests[1:])]
            barrier.wait()  # neither leaves before the other has asked
        got[iid] = answers

    threads = [threading.Thread(target=unit, args=(i,)) for i in expected]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == expected
