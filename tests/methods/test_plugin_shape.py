"""A method is a plug-in: a package outside veriplan that declares a method
gets, from that declaration alone, its solve in the harness, its command on
the command line, its section of the report and its sweeps by name. The toy
package below is written into a temporary folder and found as an installed
package is found (a ``veriplan.methods`` entry point); no file outside it is
written or changed. The built-in methods plug in the same way, and the generic
layers name none of them."""

from __future__ import annotations

import ast
import importlib
import json
import shutil
import sys
import textwrap
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

import veriplan
import veriplan.cli
from tests.conftest import EXAMPLES
from veriplan import registry as registry_module
from veriplan.cli import _parser, main
from veriplan.methods import METHODS, ReportSection, get_method, method_specs, register_method

TOY = {
    "__init__.py": '''
        """A toy method: BFS on the task, the model never asked."""
        from dataclasses import dataclass
        from pathlib import Path

        from veriplan.bench.datasets import pddl_dataset, register_dataset
        from veriplan.methods import ReportSection, Run, as_problem
        from veriplan.search import bfs
        from veriplan.verify import validate_plan

        HERE = Path(__file__).parent
        PROBLEM = "pddl"
        # what the toy brings besides solve: a report section, a command, sweeps
        REPORT = "toyplan.report:section"
        COMMANDS = "toyplan.commands"
        SWEEPS = HERE / "sweeps"

        # the toy's own tasks (a dataset registered by the package, not by veriplan)
        register_dataset("toy_blocks", lambda root: pddl_dataset(
            "toy_blocks", HERE, "domain.pddl", "problems", None))


        @dataclass(frozen=True)
        class Config:
            depth: int = 0


        def solve(problem, llm, config=Config(), *, observer=None):
            run, task = Run("toy", llm), as_problem(problem).task
            plan = [str(op) for op in (bfs(task).plan or [])]
            ok = bool(plan) and validate_plan(task, plan).valid
            return run.result(verified=ok, plan=plan, solved_by="search" if ok else None)


        def never(request):
            raise AssertionError("the toy asks no model")
        ''',
    "report.py": '''
        from veriplan.methods import ReportSection


        def section(records, out):
            mine = [r for r in records if r.method == "toy"]
            if not mine:
                return ReportSection("", {"toy": None})
            done = sum(r.verified for r in mine)
            return ReportSection(f"\\n## Toy method\\n\\n{done} of {len(mine)} verified\\n",
                                 {"toy": {"units": len(mine), "verified": done}})
        ''',
    "commands.py": '''
        def add_parsers(sub):
            t = sub.add_parser("toy", help="the toy method's own command")
            tsub = t.add_subparsers(dest="toy_command", required=True)
            hello = tsub.add_parser("hello", help="say hello")
            hello.add_argument("--name", default="world")


        def _toy(args):
            print(f"hello {args.name} from {args.toy_command}")
            return 0


        def runs(method):
            return [["toy", "hello"]] if method == "toy" else []


        COMMANDS = {"toy": _toy}
        ''',
    "sweeps/smoke.toml": '''
        methods = ["toy"]
        datasets = ["toy_blocks"]
        seeds = [0]
        [[models]]
        backend = "scripted"
        script = "toyplan:never"
        ''',
}


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """The toy package on sys.path, found through a faked ``veriplan.methods``
    entry point (as pip would install it); everything undone afterwards."""
    root = tmp_path / "site"
    pkg = root / "toyplan"
    for name, text in TOY.items():
        (pkg / name).parent.mkdir(parents=True, exist_ok=True)
        (pkg / name).write_text(textwrap.dedent(text).lstrip())
    (pkg / "problems").mkdir()
    shutil.copy(EXAMPLES / "blocks-domain.pddl", pkg / "domain.pddl")
    shutil.copy(EXAMPLES / "blocks-problem.pddl", pkg / "problems" / "p1.pddl")
    monkeypatch.syspath_prepend(str(root))
    installed = registry_module.entry_points
    toy_ep = EntryPoint(name="toy", value="toyplan", group="veriplan.methods")

    def entry_points(*, group):
        return installed(group=group) + ([toy_ep] if group == "veriplan.methods" else [])

    monkeypatch.setattr(registry_module, "entry_points", entry_points)
    commands = vars(veriplan.cli).pop("COMMANDS", None)  # built again, with the toy's
    yield pkg
    vars(veriplan.cli).pop("COMMANDS", None)
    if commands is not None:
        vars(veriplan.cli)["COMMANDS"] = commands
    METHODS.unregister("toy")  # its loaded spec
    from veriplan.bench.datasets import DATASETS

    DATASETS.unregister("toy_blocks")
    for name in [m for m in sys.modules if m == "toyplan" or m.startswith("toyplan.")]:
        del sys.modules[name]


def test_a_method_from_another_package_gets_command_report_and_sweep(toy, tmp_path, capsys):
    spec = get_method("toy")
    assert spec.report == "toyplan.report:section" and spec.commands == "toyplan.commands"
    assert spec.sweep_files() == {"smoke": toy / "sweeps" / "smoke.toml"}

    # its command, beside the built-in ones
    assert "toy" in _parser().format_help()
    assert main(["toy", "hello", "--name", "plug-in"]) == 0
    assert capsys.readouterr().out == "hello plug-in from hello\n"
    # veriplan solve, which plans for PDDL only, names the toy's own command too
    assert veriplan.cli.runs.run_commands("toy") == [["toy", "hello"],
                                                     ["bench", "toy", "--dataset", "DATASET"]]

    # its sweep, by name
    out = tmp_path / "runs"
    assert main(["bench", "--matrix", "toy:smoke", "--data-dir", str(tmp_path), "--out",
                 str(out), "--no-cache"]) == 0
    capsys.readouterr()

    # its report section, after the built-in ones' (which have nothing to say here)
    assert main(["report", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "\n## Toy method\n\n1 of 1 verified\n" in printed
    data = json.loads((out / "report.json").read_text())
    assert data["toy"] == {"units": 1, "verified": 1}
    assert {"autotos", "hidden", "controlled", "aec", "controlled_plan"} <= set(data)


def test_the_toy_is_gone_afterwards():
    assert "toy" not in METHODS and "toy" not in veriplan.cli.COMMANDS


def test_register_method_takes_the_same_spec(tmp_path):
    """A method registered at run time brings the same parts; its stand-in
    backends join the LLM layer's backends."""
    from veriplan.bench.report import method_sections
    from veriplan.llm.registry import BACKENDS

    def section(records, out):
        return ReportSection("\n## Counted\n", {"counted": len(records)})

    (tmp_path / "a.toml").write_text('methods = ["counted"]\ndatasets = ["blocksworld_3"]\n')
    base = get_method("direct")
    try:
        spec = register_method("counted", base.solve, base.config_cls, report=section,
                               backends={"counted-model": "json:JSONDecoder"},
                               sweeps=tmp_path)
        assert get_method("counted") is spec and spec.report_section() is section
        assert method_sections()[-1] is section
        assert BACKENDS.get("counted-model") is json.JSONDecoder
        assert spec.sweep_files() == {"a": tmp_path / "a.toml"}
        from veriplan.bench.runner import find_sweep, method_sweeps

        assert find_sweep("counted:a") == tmp_path / "a.toml"
        assert method_sweeps()["counted:a"] == tmp_path / "a.toml"
        with pytest.raises(veriplan.errors.ConfigError, match="its sweeps are a$"):
            find_sweep("counted:b")
    finally:
        METHODS.unregister("counted")
        BACKENDS.unregister("counted-model")


def test_the_built_in_methods_plug_in_the_same_way():
    specs = {s.name: s for s in method_specs()}
    # the sections of the report, in the order the report shows them
    from veriplan.bench.report import method_sections

    assert [f.__module__ for f in method_sections()] == [
        "veriplan.methods.autotos.report", "veriplan.methods.sqbcp.report",
        "veriplan.methods.aec.report", "veriplan.methods.closed_loop.report"]
    commands = [s.name for s in specs.values() if s.commands]
    assert commands == ["autotos", "sqbcp", "aec"]
    # each in its method's folder
    assert [s.commands for s in specs.values() if s.commands] == [
        "veriplan.methods.autotos.commands", "veriplan.methods.sqbcp.commands",
        "veriplan.methods.aec.commands"]
    # the stand-in models the LLM layer finds before any method is imported are
    # exactly the ones the methods declare
    declared = {b: t for s in specs.values() for b, t in s.backends.items()}
    assert declared == registry_module.PLUGINS["veriplan.backends"]
    # every sweep file belongs to a method
    from veriplan.bench.runner import method_sweeps

    package = Path(veriplan.__file__).parent
    assert sorted(method_sweeps().values()) == sorted(package.glob("methods/*/sweeps/*.toml"))
    # and lives in its method's folder, not on the generic floors
    folder = package.parents[1] / "benchmarks" / "sweeps"
    assert not list(folder.glob("*.toml"))


GENERIC = ["bench/report.py", "bench/runner.py", "cli/__init__.py", "cli/runs.py",
           "cli/bench_commands.py", "mcp/methods.py"]


@pytest.mark.parametrize("path", GENERIC)
def test_the_generic_layers_name_no_method(path):
    """The harness's report and sweeps and the command line's assembly learn of
    methods from the registry only: no method's name is written in them."""
    names = set(METHODS.names())
    tree = ast.parse((Path(veriplan.__file__).parent / path).read_text())
    written = {n.value for n in ast.walk(tree)
               if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    assert written & names == set()


def test_the_toy_module_is_not_importable_outside_the_fixture():
    with pytest.raises(ImportError):
        importlib.import_module("toyplan")
