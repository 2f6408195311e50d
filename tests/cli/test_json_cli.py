"""Every command that prints a result takes ``--json`` and prints exactly one JSON
document on stdout (nothing else), named by its ``schema_id`` and valid against
its versioned schema in docs/schemas; errors under ``--json`` are one error
document with a typed kind and the usual exit code.

The commands run in process (veriplan.cli.main) on cheap inputs: the bundled
examples, the scripted backend, a few instances of the benchmark data, one
household game, the AEC tests' fake kitchen. The list of commands is read from
the argparse tree, so a new command without ``--json`` (or without a case here)
fails :func:`test_every_result_printing_command_takes_json`."""

from __future__ import annotations

import argparse
import io
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from tests.conftest import EXAMPLES, REPO
from veriplan.cli import main

SCHEMAS = REPO / "docs" / "schemas"
D, P = str(EXAMPLES / "blocks-domain.pddl"), str(EXAMPLES / "blocks-problem.pddl")
CFG = str(EXAMPLES / "blocks-planbench.yaml")
SCRIPTED = ["--backend", "scripted", "--no-cache"]

# Commands that print no result: what they print instead, and where it is documented.
NOT_RESULTS = {
    "mcp": "a server: its stdout is the MCP protocol; `--describe` prints the mcp_server "
           "document (docs/mcp.md)",
}


# ----- the command tree ------------------------------------------------------------------------
def _leaves(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield " ".join(path), parser
        return
    for action in subs:
        for name, child in action.choices.items():
            yield from _leaves(child, (*path, name))


def commands() -> dict[str, argparse.ArgumentParser]:
    """Every command of ``veriplan``, with its sub-command (``aec run``)."""
    from veriplan.cli import _parser

    return dict(_leaves(_parser()))


# ----- schemas ---------------------------------------------------------------------------------
def _registry() -> Registry:
    registry = Registry()
    for f in SCHEMAS.glob("*.json"):
        doc = json.loads(f.read_text())
        registry = registry.with_resource(doc["$id"], Resource.from_contents(doc))
    return registry


REGISTRY = _registry()


def check_document(text: str, name: str) -> dict:
    """``text`` is exactly one JSON document (nothing before or after it), named
    ``veriplan.<name>/1`` and valid against docs/schemas/<name>.v1.json."""
    doc = json.loads(text)  # one document and nothing else, or this raises
    assert isinstance(doc, dict) and doc.get("schema_id") == f"veriplan.{name}/1", doc
    schema = json.loads((SCHEMAS / f"{name}.v1.json").read_text())
    Draft202012Validator.check_schema(schema)
    Draft202012Validator(schema, registry=REGISTRY).validate(doc)
    return doc


# ----- one case a command ----------------------------------------------------------------------
@dataclass(frozen=True)
class Case:
    document: str  # the schema's name
    argv: Callable[[Context], list[str]]
    codes: tuple[int, ...] = (0,)  # the exit codes the case may end with
    stdin: str = ""
    needs: tuple[str, ...] = ()  # fixtures: "data", "household", "kitchen", "models"


@dataclass
class Context:
    tmp: Path
    data: Path | None = None
    runs: Path | None = None  # a run store with one scripted unit
    unit: str = ""


CASES: dict[str, Case] = {
    "validate": Case("validate", lambda c: [
        "validate", "--domain", D, "--problem", P, "--plan",
        str(EXAMPLES / "blocks-bad-plan.txt"), "--trace", "--explain-reading"], (1,)),
    "solve-classical": Case("solve_classical_cli", lambda c: [
        "solve-classical", D, P, "--planner", "bfs"]),
    "obfuscate": Case("obfuscate", lambda c: ["obfuscate", D, P, "--out", str(c.tmp / "obf")]),
    "prompt": Case("prompt", lambda c: ["prompt", D, P, "--planbench-config", CFG,
                                        "--example-problem", P]),
    "solve": Case("solve", lambda c: [
        "solve", "--domain", D, "--problem", P, *SCRIPTED,
        "--script", "tests.mcp.scripted_model:answer"]),
    "llm complete": Case("llm_complete", lambda c: [
        "llm", "complete", "--prompt", "Name a colour.", *SCRIPTED,
        "--script", "tests.mcp.scripted_model:answer"]),
    "model list": Case("model_list", lambda c: ["model", "list"], needs=("models",)),
    "model path": Case("model_path", lambda c: ["model", "path", "smollm2-135m"],
                       needs=("models",)),
    "model prepare": Case("model_prepare", lambda c: ["model", "prepare", "smollm2-135m"],
                          needs=("models",)),
    "bench": Case("bench", lambda c: [
        "bench", "direct", "--dataset", "blocksworld", "--limit", "2", "--data-dir",
        str(c.data), "--out", str(c.tmp / "bench"), "--backend", "scripted", "--script",
        "tests.bench.scripts:solver", "--no-cache", "--config", "prompt=pddl"], needs=("data",)),
    "report": Case("report", lambda c: ["report", str(c.runs)], needs=("data",)),
    "trace": Case("trace", lambda c: ["trace", c.unit, "--dir", str(c.runs)], needs=("data",)),
    "export-inspect": Case("export_inspect", lambda c: [
        "export-inspect", str(c.runs), "--out", str(c.tmp / "logs")], needs=("data",)),
    "import planbench": Case("import", lambda c: [
        "import", "planbench", str(c.tmp / "pb" / "blocksworld__gpt-test__one_shot.json"),
        "--out", str(c.tmp / "imported"), "--data-dir", str(c.data)], needs=("data",)),
    "import mystery-planning": Case("import", lambda c: [
        "import", "mystery-planning", str(c.tmp / "mp" / "mystery_blocksworld_gpt-test_500"),
        "--out", str(c.tmp / "imported-mp"), "--data-dir", str(c.data), "--skip-unknown"],
        needs=("data",)),
    "autotos reference": Case("autotos_reference", lambda c: [
        "autotos", "reference", "--domain", "24game", "--limit", "2", "--data-dir",
        str(c.data)],
        needs=("data",)),
    "autotos run": Case("autotos_run", lambda c: [
        "autotos", "run", "--domain", "24game", "--data-dir", str(c.data), "--repeats", "1",
        "--out", str(c.tmp / "autotos"), "--config", "eval_limit=5", *SCRIPTED,
        "--script", "tests.methods.autotos.scripts:reference_answers"], needs=("data",)),
    "ask": Case("ask", lambda c: [
        "ask", "Make a toy car from a wooden table", *SCRIPTED,
        "--script", "tests.methods.sqbcp.scripts:toy_car", "--config", "embeddings=lexical",
        "--config", "bidirectional=false"], stdin="no\nyes\nI have tape instead\n"),
    "env play": Case("env_play", lambda c: [
        "env", "play", "household", "--game", "eval/pick_and_place/0"],
        stdin=":actions\nlook\n:facts\n:quit\n", needs=("household",)),
    "env check": Case("env_check", lambda c: ["env", "check", "--env", "household",
                                              "--limit", "1"], needs=("household",)),
    "env check-queries": Case("env_check_queries", lambda c: [
        "env", "check-queries", "--limit", "1", "--per-step", "1"], needs=("household",)),
    "aec check-store": Case("aec_check_store", lambda c: [
        "aec", "check-store", "--env", "household", "--limit", "1"], needs=("household",)),
    "aec run": Case("aec_run", lambda c: [
        "aec", "run", "--env", "fakekitchen", "--task", "hot_apple/fridge", *SCRIPTED,
        "--script", "tests.methods.aec.kitchen:answer"], needs=("kitchen",)),
    "aec calibrate": Case("aec_calibrate", lambda c: [
        "aec", "calibrate", "--dataset", "kitchen_valid", "--name", "kitchen", *SCRIPTED,
        "--script", "tests.methods.aec.kitchen:answer"], needs=("kitchen",)),
    "paper": Case("paper", lambda c: ["paper", "--list"]),
    "aec select-tau": Case("aec_select_tau", lambda c: [
        "aec", "select-tau", "--dataset", "kitchen_valid", "--name", "kitchen", "--taus", "0.1",
        "0.9", "--out", str(c.tmp / "tau-runs"), *SCRIPTED,
        "--script", "tests.methods.aec.kitchen:answer"], needs=("kitchen",)),
}


# ----- fixtures --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def published(tmp_path_factory, data_dir: Path) -> Path:
    """A PlanBench response file and a Mystery_Planning run folder (tests/bench's)."""
    from tests.bench.test_import import mystery_run, planbench_file

    root = tmp_path_factory.mktemp("published")
    (root / "pb").mkdir()
    planbench_file(data_dir, root / "pb" / "blocksworld__gpt-test__one_shot.json")
    (root / "mp").mkdir()
    mystery_run(data_dir, root / "mp")
    return root


@pytest.fixture(scope="module")
def store(tmp_path_factory, data_dir: Path) -> tuple[Path, str]:
    """A run store with two scripted units, and one unit's id."""
    from veriplan.bench.runner import run_sweep
    from veriplan.bench.store import RunStore
    from veriplan.bench.units import BackendSpec, SweepPlan

    out = tmp_path_factory.mktemp("runs")
    spec = BackendSpec.of("scripted", script="tests.bench.scripts:solver")
    run_sweep(SweepPlan(["direct"], ["blocksworld"], [spec], [{"prompt": "pddl"}], [0], 2),
              out, data_root=data_dir)
    first = next(iter(RunStore(out, create=False).records()))
    return out, first.id


@pytest.fixture
def kitchen(tmp_path, monkeypatch):
    """The AEC tests' fake kitchen as environment ``fakekitchen`` and dataset
    ``kitchen_valid``; calibration and tau files in a fresh cache."""
    from tests.methods.aec import kitchen as k
    from veriplan.bench.datasets import DATASETS, register_dataset
    from veriplan.envs import ENVS
    from veriplan.methods.aec.domain import ENV_MODELS

    monkeypatch.setenv("VERIPLAN_CACHE", str(tmp_path / "cache"))
    ENVS.register("fakekitchen", k.FakeKitchen)
    ENV_MODELS.register("fakekitchen", k.model())
    register_dataset("kitchen_valid", k.dataset)
    yield
    ENVS.unregister("fakekitchen")
    ENV_MODELS.unregister("fakekitchen")
    DATASETS.unregister("kitchen_valid")


@pytest.fixture
def models(tmp_path, monkeypatch):
    """A cache in which smollm2-135m looks prepared (a sparse file of its size):
    ``model prepare`` finds it and fetches nothing."""
    from veriplan.llm.models import MODELS, model_path

    monkeypatch.setenv("VERIPLAN_CACHE", str(tmp_path / "cache"))
    path = model_path("smollm2-135m")
    path.parent.mkdir(parents=True)
    with path.open("wb") as f:
        f.truncate(MODELS["smollm2-135m"].size or 1)


def _context(case: Case, request: pytest.FixtureRequest, tmp_path: Path) -> Context:
    ctx = Context(tmp_path)
    if "data" in case.needs:
        ctx.data = request.getfixturevalue("data_dir")
        ctx.runs, ctx.unit = request.getfixturevalue("store")
        root = request.getfixturevalue("published")
        for sub in ("pb", "mp"):
            (tmp_path / sub).symlink_to(root / sub)
    if "household" in case.needs:
        _need_textworld()
    if "kitchen" in case.needs:
        request.getfixturevalue("kitchen")
    if "models" in case.needs:
        request.getfixturevalue("models")
    return ctx


def _need_textworld() -> None:
    """Skip (fail under CI) without the TextWorld Python the household games need."""
    import os

    from veriplan.envs.household.env import textworld_python
    from veriplan.errors import VeriplanError

    try:
        textworld_python()
    except VeriplanError:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("the TextWorld Python (.venv-textworld) is missing")
        pytest.skip("the TextWorld Python (.venv-textworld) is missing")


def run(argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        stdin: str = "") -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


# ----- the tests -------------------------------------------------------------------------------
def test_every_result_printing_command_takes_json() -> None:
    tree = commands()
    without = sorted(name for name, p in tree.items() if name not in NOT_RESULTS
                     and not any("--json" in a.option_strings for a in p._actions))
    assert without == [], f"commands without --json: {without}"
    # and every command has a case below, which checks its document against its schema
    assert sorted(set(tree) - set(NOT_RESULTS)) == sorted(CASES)


@pytest.mark.parametrize("command", sorted(CASES))
def test_json_document(command: str, request: pytest.FixtureRequest, tmp_path: Path,
                       capsys: pytest.CaptureFixture[str],
                       monkeypatch: pytest.MonkeyPatch) -> None:
    case = CASES[command]
    ctx = _context(case, request, tmp_path)
    code, out, err = run([*case.argv(ctx), "--json"], capsys, monkeypatch, case.stdin)
    assert code in case.codes, err
    check_document(out, case.document)


@pytest.mark.parametrize("argv, kind, code", [
    (["validate", "--domain", "missing.pddl", "--problem", P, "--plan", "x"], "missing-file", 2),
    (["validate", "--domain", D, "--problem", P], "usage", 2),
    (["solve-classical", D, P, "--planner", "nope"], "usage", 2),
    (["mcp", "--describe"], "usage", 2),  # a server takes no --json
    (["prompt", D, P, "--planbench-config", str(EXAMPLES / "blocks-plan.txt")], "config", 2),
    (["model", "path", "no-such-model"], "model", 2),
])
def test_errors_are_one_error_document(argv: list[str], kind: str, code: int,
                                       capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    got, out, err = run([*argv, "--json"], capsys, monkeypatch)
    assert got == code
    doc = check_document(out, "cli_error")
    assert doc["error"]["kind"] == kind and doc["exit_code"] == code
    assert doc["command"] == " ".join(w for w in argv[:2] if not w.startswith(("-", "/")))
    assert doc["error"]["message"] and doc["error"]["message"] in err


@pytest.mark.parametrize("raised, kind, code", [
    (RuntimeError("boom"), "internal", 3), (KeyboardInterrupt(), "interrupted", 130)])
def test_a_crash_or_ctrl_c_is_an_error_document_too(raised: BaseException, kind: str, code: int,
                                                    capsys, monkeypatch) -> None:
    import veriplan.cli

    def handler(args: argparse.Namespace) -> int:
        raise raised

    monkeypatch.setitem(veriplan.cli.COMMANDS, "obfuscate", handler)
    got, out, err = run(["obfuscate", D, P, "--out", "x", "--json"], capsys, monkeypatch)
    doc = check_document(out, "cli_error")
    assert got == code and doc["exit_code"] == code and doc["error"]["kind"] == kind
    assert doc["command"] == "obfuscate" and "boom" not in out  # a crash's text: stderr only


def test_ask_whose_answers_run_out_says_so_in_its_error_document(capsys, monkeypatch) -> None:
    argv = CASES["ask"].argv(Context(Path(".")))
    got, out, err = run([*argv, "--json"], capsys, monkeypatch, stdin="no\n")
    doc = check_document(out, "cli_error")
    assert got == 130 and doc["error"]["kind"] == "interrupted"
    assert "standard input ended" in doc["error"]["message"] and "? Is it true" in err


def test_what_a_run_prints_as_it_goes_goes_to_stderr(capsys, monkeypatch) -> None:
    """solve's progress (prompts, answers, verdicts) stays off stdout under --json."""
    code, out, err = run(["solve", "--domain", D, "--problem", P, *SCRIPTED, "--script",
                          "tests.mcp.scripted_model:answer", "--json"], capsys, monkeypatch)
    doc = check_document(out, "solve")
    assert code == 0 and doc["verified"] and doc["scope"] == "plan_on_task"
    assert "(unstack c a)" in err  # the model's answer, shown as the run went


def test_a_process_s_stdout_holds_the_document_only() -> None:
    """Run as a process (standard output a pipe, moved at the descriptor level while
    the command runs): stdout is the one document, the run's progress is on stderr."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (os.environ.get("PYTHONPATH"), str(REPO)) if p)}
    proc = subprocess.run([sys.executable, "-m", "veriplan.cli", "solve", "--domain", D,
                           "--problem", P, *SCRIPTED, "--script",
                           "tests.mcp.scripted_model:answer", "--json"],
                          capture_output=True, text=True, env=env, cwd=REPO, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert check_document(proc.stdout, "solve")["verified"]
    assert "(unstack c a)" in proc.stderr


def test_a_reader_that_goes_away_ends_the_command_quietly(tmp_path: Path) -> None:
    """``veriplan validate --json ... | head -c 10``: exit code 141 (the closed pipe),
    nothing on stderr (no traceback from the moved standard output)."""
    import os
    import subprocess
    import sys

    plan = tmp_path / "long.txt"
    plan.write_text("(unstack c a)\n(put-down c)\n" + "(pick-up c)\n(put-down c)\n" * 2000)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (os.environ.get("PYTHONPATH"), str(REPO)) if p)}
    proc = subprocess.Popen([sys.executable, "-m", "veriplan.cli", "validate", "--domain", D,
                             "--problem", P, "--plan", str(plan), "--trace", "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert proc.stdout is not None and proc.stdout.read(10).startswith(b"{")
    proc.stdout.close()
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 141 and err == b""


def test_scope_and_verdict_vocabulary_is_the_one_of_core_verdict() -> None:
    """The schemas' scope, verdict and finding kinds are veriplan.core.verdict's, so a
    new scope cannot appear in a document without its schema knowing it."""
    from veriplan.core.verdict import FindingKind, Scope, Verdict

    defs = json.loads((SCHEMAS / "cli_common.v1.json").read_text())["$defs"]
    assert defs["scope"]["enum"] == [s.value for s in Scope]
    assert defs["verdict"]["enum"] == [v.value for v in Verdict]
    assert defs["finding"]["properties"]["kind"]["enum"] == [k.value for k in FindingKind]


def test_error_kinds_in_the_schema_are_the_cli_s() -> None:
    from veriplan.cli.jsondoc import ErrorKind

    schema = json.loads((SCHEMAS / "cli_error.v1.json").read_text())
    assert schema["properties"]["error"]["properties"]["kind"]["enum"] == \
        [k.value for k in ErrorKind]
