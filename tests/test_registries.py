"""The registry helper and every registry built on it: an unknown name is a
ConfigError (and the kind's older error type) naming the kind and every
choice; a name registered at run time is used; entry points add names."""

from __future__ import annotations

import types
from collections.abc import Callable
from importlib.metadata import EntryPoint
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from tests.helpers import blocks_task
from veriplan import registry as registry_module
from veriplan.errors import BackendError, ConfigError, DataError
from veriplan.registry import Registry

# ---------------------------------------------------------------- the helper


def _entry_points(monkeypatch, *eps: EntryPoint) -> None:
    def fake(*, group: str):
        return [ep for ep in eps if ep.group == group]

    monkeypatch.setattr(registry_module, "entry_points", fake)


def test_names_are_sorted_and_strings_import_on_first_use():
    reg: Registry = Registry("thing", {"b": "json:dumps", "a": "json", "c": len})
    assert reg.names() == ["a", "b", "c"] == list(reg)
    assert len(reg) == 3 and "a" in reg and "z" not in reg and 3 not in reg
    import json

    assert reg.get("a") is json and reg.get("b") is json.dumps and reg.get("c") is len
    assert reg.entries() == {"a": "json", "b": "json:dumps", "c": len}


def test_unknown_name_names_kind_and_choices():
    reg: Registry = Registry("gadget", {"x": 1, "y": 2})
    with pytest.raises(ConfigError, match=r"unknown gadget 'z': use one of x, y$"):
        reg.get("z")
    with pytest.raises(ConfigError, match="unknown gadget"):
        reg.get(["not", "a", "name"])  # type: ignore[arg-type]
    assert "none registered" in str(Registry("gadget").unknown("z"))


def test_error_type_and_load_once():
    calls = []

    class Odd(ConfigError, KeyError):
        pass

    def load(name, obj):
        calls.append(name)
        return obj * 2

    reg: Registry = Registry("number", {"one": 1}, load=load, error=Odd)
    assert reg.get("one") == 2 and reg.get("one") == 2 and calls == ["one"]
    with pytest.raises(KeyError):
        reg.get("two")


def test_register_replaces_and_unregister_removes():
    reg: Registry = Registry("number", {"one": 1}, load=lambda n, o: o + 100)
    assert reg.get("one") == 101
    reg.register("one", 2)  # the loaded value is dropped
    reg.register("three", 3)
    assert reg.get("one") == 102 and reg.get("three") == 103
    reg.unregister("three")
    reg.unregister("never-there")
    assert "three" not in reg
    with pytest.raises(ConfigError):
        reg.get("three")


def test_entry_points_add_names_but_never_shadow(monkeypatch):
    _entry_points(monkeypatch,
                  EntryPoint("extra", "json:loads", "veriplan.things"),
                  EntryPoint("builtin", "json:loads", "veriplan.things"),
                  EntryPoint("other", "json:loads", "veriplan.other"))
    import json

    reg: Registry = Registry("thing", {"builtin": len}, group="veriplan.things")
    assert reg.names() == ["builtin", "extra"]
    assert reg.get("extra") is json.loads and reg.get("builtin") is len
    assert reg.entries()["extra"] == "json:loads" and "extra" in reg
    assert "other" not in reg


def test_builtin_lookups_do_not_read_entry_points(monkeypatch):
    def boom(**_):
        raise AssertionError("entry points read for a built-in name")

    monkeypatch.setattr(registry_module, "entry_points", boom)
    reg: Registry = Registry("thing", {"a": 1}, group="veriplan.things")
    assert reg.get("a") == 1 and "a" in reg


# ------------------------------------------------------------ each registry


class Case(NamedTuple):
    registry: Registry
    kind: str
    kept: type[Exception]  # the type an unknown name raised before the registry helper
    entry: Any  # what a test registers
    use: Callable[[str], Any]  # the public call that looks a name up
    check: Callable[[Any, Any], bool]  # (what use returned, entry) -> as expected


def _backends(tmp_path: Path) -> Case:
    from veriplan.llm import registry as r

    class Echo:
        name = "echo"

        def __init__(self, **options):
            self.options = options

    return Case(r.BACKENDS, "backend", BackendError, Echo,
                lambda name: r.create_backend(name, model="m"),
                lambda got, entry: isinstance(got, entry) and got.options == {"model": "m"})


def _datasets(tmp_path: Path) -> Case:
    from veriplan.bench import datasets as d

    ds = d.Dataset("mine", (), "v0")
    return Case(d.DATASETS, "dataset", DataError, lambda root: ds,
                lambda name: d.load_dataset(name, tmp_path), lambda got, entry: got is ds)


def _envs(tmp_path: Path) -> Case:
    from veriplan import envs

    class Toy:
        def __init__(self, **options):
            self.options = options

    return Case(envs.ENVS, "environment", ConfigError, Toy,
                lambda name: envs.make_env(name, size=2),
                lambda got, entry: isinstance(got, entry) and got.options == {"size": 2})


def _domains(tmp_path: Path) -> Case:
    from veriplan.domains import autotos

    sentinel = object()
    return Case(autotos.DOMAINS, "AutoToS domain", DataError,
                types.SimpleNamespace(DOMAIN=sentinel),  # a module defining DOMAIN
                autotos.get_domain, lambda got, entry: got is sentinel)


def _planners(tmp_path: Path) -> Case:
    from veriplan.planners import classical

    def planner(task, time_limit):
        return "unsolvable", None, 7

    return Case(classical.PLANNERS, "planner", ValueError, planner,
                lambda name: classical.solve_classical(blocks_task(2), name),
                lambda got, entry: (got.planner, got.status, got.expanded)
                == ("toy-test", "unsolvable", 7))


def _heuristics(tmp_path: Path) -> Case:
    from veriplan.search import heuristics

    def zero(task):
        return lambda state: 0.0

    return Case(heuristics.HEURISTICS, "heuristic", ValueError, zero,
                lambda name: heuristics.make_heuristic(name, blocks_task(2)),
                lambda got, entry: got(0) == 0.0)


CASES = {"backends": _backends, "datasets": _datasets, "envs": _envs, "domains": _domains,
         "planners": _planners, "heuristics": _heuristics}


@pytest.fixture(params=sorted(CASES))
def case(request, tmp_path) -> Case:
    return CASES[request.param](tmp_path)


def test_unknown_name_is_a_config_error_naming_kind_and_choices(case):
    with pytest.raises(ConfigError) as info:
        case.use("no-such-name")
    assert isinstance(info.value, case.kept)  # callers catching the old type still do
    msg = str(info.value)
    assert msg.startswith(f"unknown {case.kind} 'no-such-name': use one of ")
    choices = msg.partition("use one of ")[2].split(", ")
    assert choices == case.registry.names() and len(choices) >= 2


def test_run_time_register_is_used(case):
    name = "toy-test"
    case.registry.register(name, case.entry)
    try:
        assert name in case.registry.names()
        assert case.check(case.use(name), case.entry)
    finally:
        case.registry.unregister(name)
    assert name not in case.registry


def test_builtin_names_are_kept():
    from veriplan.bench.datasets import DATASETS
    from veriplan.domains.autotos import DOMAINS
    from veriplan.envs import ENVS
    from veriplan.llm import BACKENDS
    from veriplan.llm.registry import available
    from veriplan.planners.classical import PLANNERS
    from veriplan.search import HEURISTICS

    assert {"llamacpp", "openai", "anthropic", "replay", "scripted"} <= set(BACKENDS)
    assert available()["scripted"] == "veriplan.llm.backends.scripted:ScriptedBackend"
    assert {"blocksworld", "blocksworld_obfuscated", "blocksworld_hard_smallest20",
            "autotos_24game", "logistics"} <= set(DATASETS)
    assert set(ENVS) >= {"scienceworld", "household"}
    assert set(DOMAINS) >= {"24game", "blocksworld", "crossword", "sokoban", "prontoqa"}
    assert set(PLANNERS) == {"fd", "fd-optimal", "bfs", "astar-hadd", "astar-hff", "gbfs-hff"}
    assert set(HEURISTICS) >= {"hadd", "hff"}
    assert {BACKENDS.group, DATASETS.group, ENVS.group, DOMAINS.group} == {
        "veriplan.backends", "veriplan.datasets", "veriplan.envs", "veriplan.autotos_domains"}


def test_autotos_domain_by_module_entry():
    from veriplan.domains.autotos import get_domain
    from veriplan.domains.autotos.base import SearchDomain

    assert isinstance(get_domain("24game"), SearchDomain)


# ------------------------------------------------- model names, asked of classes


@pytest.mark.parametrize(("name", "model", "options", "expected"), [
    ("llamacpp", None, {}, None),  # the default embedded model
    ("llamacpp", None, {"model_path": "/m/tiny-q4.gguf"}, "tiny-q4"),
    ("llamacpp", "smollm2-135m", {"model_path": "/m/x.gguf"}, "smollm2-135m"),
    ("scripted", None, {}, "scripted"),
    ("scripted", "fake", {}, "fake"),
    ("openai", "gpt-x", {"base_url": "http://h"}, "gpt-x"),
    ("openai", None, {}, ""),
    ("anthropic", "claude-x", {}, "claude-x"),
    ("replay", None, {"cassette": "c.jsonl"}, ""),
])
def test_model_name_asks_the_backend_class(name, model, options, expected):
    from veriplan.bench.units import BackendSpec
    from veriplan.llm.models import DEFAULT_MODEL

    got = BackendSpec.of(name, model, **options).model_name()
    assert got == (DEFAULT_MODEL if expected is None else expected)


def test_model_name_of_a_plugin_backend():
    from veriplan.bench.units import BackendSpec
    from veriplan.llm.registry import BACKENDS

    class Plain:  # no model_name_for: the model option
        pass

    class Fixed:
        @classmethod
        def model_name_for(cls, options):
            return f"fixed-{options.get('size', 0)}"

    BACKENDS.register("plain-test", Plain)
    BACKENDS.register("fixed-test", Fixed)
    try:
        assert BackendSpec.of("plain-test", "m1").model_name() == "m1"
        assert BackendSpec.of("plain-test").model_name() == ""
        assert BackendSpec.of("fixed-test", size=3).model_name() == "fixed-3"
    finally:
        BACKENDS.unregister("plain-test")
        BACKENDS.unregister("fixed-test")
    with pytest.raises(BackendError, match="unknown backend 'plain-test'"):
        BackendSpec.of("plain-test").model_name()


def test_installed_entry_points_are_read_once_for_every_group(monkeypatch):
    """The installed packages' metadata is read once for all groups, and again only
    when the import path changes (a package added to it may bring entry points)."""
    import importlib.metadata
    import sys
    from importlib.metadata import EntryPoints

    reads = []
    eps = EntryPoints([EntryPoint("a", "m:a", "veriplan.x"), EntryPoint("b", "m:b", "veriplan.y")])

    def installed():
        reads.append(1)
        return eps

    monkeypatch.setattr(importlib.metadata, "entry_points", installed)
    monkeypatch.setattr(registry_module, "_INSTALLED", None)
    assert [e.name for e in registry_module.entry_points(group="veriplan.x")] == ["a"]
    assert [e.name for e in registry_module.entry_points(group="veriplan.y")] == ["b"]
    assert registry_module.entry_points(group="veriplan.z") == []
    assert len(reads) == 1
    monkeypatch.setattr(sys, "path", [*sys.path, "/nonexistent-veriplan-test"])
    registry_module.entry_points(group="veriplan.x")
    assert len(reads) == 2
