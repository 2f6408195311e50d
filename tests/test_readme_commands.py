"""Every shell command of the README and of the docs pages beside it runs as
written (issue 46, item 7): each command of a ```sh block of README.md and
docs/*.md is either run here, from a copy of the checkout's layout in a
temporary folder, with its recorded exit code and a phrase of its output
(:data:`RUN`), or listed with the reason it is not (:data:`LISTED`: it needs a
server, an API key, the embedded model, a person at the keyboard, or files that
are not in the data). A new command that is neither fails
:func:`test_every_command_is_recorded`.

A command whose model is a server runs with a stand-in model in its place
(:data:`RUN`'s ``run``), where a later command of the page reads what it
writes (a report's ``--compare`` needs both arms in the store).

The pages run in two folders side by side (:data:`GROUPS`: the pages that
share a store run in order in one); a page's commands run in order, each in a
fresh shell (a block's ``cd`` holds for the rest of that block), and a command
two pages show runs once."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import REPO

SERVER = "--backend openai --base-url http://127.0.0.1:8000/v1"
SCRIPTED = "--backend scripted --script tests.bench.scripts:pick_first --no-cache"
EX = "src/veriplan/examples"


def documents() -> list[str]:
    return ["README.md", *sorted(str(p.relative_to(REPO)) for p in (REPO / "docs").glob("*.md"))]


def blocks(document: str) -> list[list[str]]:
    """The document's ```sh blocks, each as its commands: continuation lines
    joined, comment lines and trailing comments (``  # ...``) dropped, a quoted
    string over several lines kept as one command."""
    text = (REPO / document).read_text()
    out: list[list[str]] = []
    for block in re.findall(r"```(?:sh|bash|shell)\n(.*?)```", text, flags=re.S):
        commands: list[str] = []
        current = ""
        for line in block.splitlines():
            if not current and (not line.strip() or line.lstrip().startswith("#")):
                continue
            line = re.sub(r"\s{2,}#\s.*$", "", line)  # a trailing comment, set off by spaces
            if line.rstrip().endswith("\\"):
                current += line.rstrip()[:-1].strip() + " "
                continue
            current += line.strip() if not current.endswith("\n") else line
            try:
                shlex.split(current)
            except ValueError:  # an open quote: the command goes on on the next line
                current += "\n"
                continue
            commands.append(current.strip())
            current = ""
        out.append(commands)
    return out


@dataclass(frozen=True)
class Expect:
    """What a command does here: its exit code and a phrase of its output
    (standard output and error); ``run``: the command run in its place (a
    stand-in model for a server), with ``why``."""

    code: int
    phrase: str
    run: str | None = None
    why: str = ""


def standin(command: str, backend: str, limit: int | None = None) -> str:
    """``command`` with its server replaced by ``backend`` (and its model name
    dropped), and ``--limit`` set to ``limit``."""
    swapped = re.sub(re.escape(SERVER) + r" --model \S+", backend, command)
    assert swapped != command, command
    if limit is not None:
        swapped = (re.sub(r"--limit \d+", f"--limit {limit}", swapped) if "--limit" in swapped
                   else f"{swapped} --limit {limit}")
    return ("PYTHONPATH=. " + swapped) if "scripted" in backend else swapped


B_VALIDATE = (f"veriplan validate --domain {EX}/blocks-domain.pddl --problem "
              f"{EX}/blocks-problem.pddl --plan {EX}/blocks-bad-plan.txt")
T_VALIDATE = (f"veriplan validate --domain {EX}/tanks-domain.pddl --problem "
              f"{EX}/tanks-problem.pddl --plan {EX}/tanks-plan.txt")
SOLVE = (f"veriplan solve --domain {EX}/blocks-domain.pddl --problem {EX}/blocks-problem.pddl "
         f"--planbench-config {EX}/blocks-planbench.yaml")
SOLVE_DRIP = (f"veriplan solve --method drip --domain {EX}/blocks-domain.pddl "
              f"--problem {EX}/blocks-problem.pddl")
IMPORT_BW = ("veriplan import planbench ../shared/data/planbench/responses/"
             "blocksworld__gpt-4_chat__one_shot.json --out runs/published "
             "--data-dir ../shared/data")
IMPORT_MYSTERY = ("veriplan import planbench ../shared/data/planbench/responses/"
                  "mystery_blocksworld__gpt-4_chat__one_shot.json --out runs/published "
                  "--data-dir ../shared/data")
BENCH_BW3 = ("veriplan bench backprompt --dataset blocksworld_3 --data-dir ../shared/data "
             f"{SERVER} --model my-model --limit 20 --seeds 0 1 --config max_attempts=3 "
             "--workers 4 --out runs/bw3")
BENCH_BW3_DIRECT = ("veriplan bench direct --dataset blocksworld_3 --data-dir ../shared/data "
                    f"{SERVER} --model my-model --limit 20 --seeds 0 1 --workers 4 --out runs/bw3")
BENCH_DIRECT_PUBLISHED = ("veriplan bench direct --dataset blocksworld --data-dir ../shared/data "
                          f"--limit 20 {SERVER} --model my-model --out runs/published")
BENCH_DRIP = ("veriplan bench drip --dataset blocksworld_hard --data-dir ../shared/data "
              f"--actuator symbolic {SERVER} --model m --out runs/drip")
BENCH_COT = f"veriplan bench cot --dataset blocksworld_hard --data-dir ../shared/data {SERVER} " \
            "--model m --out runs/drip"
BENCH_SQBCP = ("veriplan bench sqbcp --dataset sqbcp_recipes --config k=1 --limit 20 "
               f"--out runs/sq {SERVER} --model m")
BENCH_SELF_ASK = f"veriplan bench self-ask --dataset sqbcp_recipes --limit 20 --out runs/sq " \
                 f"{SERVER} --model m"
README_DRIP = ("veriplan bench drip --dataset blocksworld_hard --data-dir ../shared/data "
               "--limit 5 --out runs/drip")
SCHEMAS = (""".venv/bin/python -c "import json; from veriplan.mcp.models import DOCUMENTS, """
           """json_schema\nfor n in DOCUMENTS: open(f'docs/schemas/{n}.v1.json','w')"""
           """.write(json.dumps(json_schema(n), indent=2, sort_keys=True)+'\\n')\"""")
STANDIN_WHY = "a server: run with a stand-in model, the report below reads its store"

RUN: dict[str, Expect] = {
    B_VALIDATE: Expect(1, "not valid: step 2 (pick-up b): precondition (handempty) is false"),
    T_VALIDATE: Expect(0, "metric: minimize (+ (used) (* 2 (fuel t))) = 17.75"),
    README_DRIP: Expect(0, "2 unit(s) run",
                        run=README_DRIP.replace("--limit 5", "--limit 2 --backend controlled-plan"),
                        why="the embedded model (minutes): run with the controlled stand-in, "
                            "the report below reads its store"),
    "veriplan report runs/drip": Expect(0, "wrote runs/drip/report.md"),
    IMPORT_BW: Expect(0, "500 record(s)"),
    IMPORT_MYSTERY: Expect(0, "500 record(s)"),
    "veriplan report runs/published": Expect(0, "wrote runs/published/report.md"),
    # docs/benchmarks.md
    BENCH_BW3: Expect(0, "not verified 4", run=standin(BENCH_BW3, SCRIPTED, 2),
                     why=STANDIN_WHY),
    BENCH_BW3_DIRECT: Expect(0, "unit(s) run", run=standin(BENCH_BW3_DIRECT, SCRIPTED, 2),
                             why=STANDIN_WHY),
    "veriplan report runs/bw3 --compare backprompt:max_attempts=3 direct":
        Expect(0, "wrote runs/bw3/report.md"),
    BENCH_DIRECT_PUBLISHED: Expect(0, "unit(s) run",
                                   run=standin(BENCH_DIRECT_PUBLISHED, SCRIPTED, 5),
                                   why=STANDIN_WHY),
    "veriplan report runs/published --compare published:planbench:prompt_type=oneshot direct":
        Expect(0, "wrote runs/published/report.md"),
    "PYTHONPATH=. veriplan bench backprompt --dataset blocksworld_3 --data-dir ../shared/data "
    "--backend scripted --script tests.inspect.scripts:second_try --config prompt=pddl "
    "--limit 5 --no-cache --out runs/scripted": Expect(0, "verified 5"),
    "veriplan trace db52bcaa --dir runs/scripted":
        Expect(0, "unit db52bcaa090d984a: backprompt on blocksworld_3/instance-2"),
    "veriplan export-inspect runs/scripted --out inspect-logs": Expect(0, "inspect-logs"),
    "export LOCAL_BASE_URL=http://127.0.0.1:8000/v1 LOCAL_API_KEY=none": Expect(0, ""),
    # docs/cli.md
    "veriplan solve-classical src/veriplan/examples/blocks-domain.pddl "
    "src/veriplan/examples/blocks-problem.pddl --planner fd":
        Expect(0, "verified by veriplan's validator"),
    "veriplan obfuscate src/veriplan/examples/blocks-domain.pddl "
    "src/veriplan/examples/blocks-problem.pddl --seed 7 --out mystery": Expect(0, "mystery"),
    "veriplan prompt src/veriplan/examples/blocks-domain.pddl "
    "src/veriplan/examples/blocks-problem.pddl "
    "--planbench-config src/veriplan/examples/blocks-planbench.yaml": Expect(0, "[PLAN]"),
    BENCH_DRIP: Expect(0, "unit(s) run", run=standin(BENCH_DRIP, "--backend controlled-plan", 2),
                       why=STANDIN_WHY),
    BENCH_COT: Expect(0, "not verified 2", run=standin(BENCH_COT, SCRIPTED, 2),
                      why=STANDIN_WHY),
    "veriplan report runs/drip --compare drip:actuator=symbolic cot":
        Expect(0, "wrote runs/drip/report.md"),
    "veriplan autotos reference --domain blocksworld --data-dir ../shared/data --limit 20":
        Expect(0, "blocksworld: 20/20 solved and validated"),
    BENCH_SQBCP: Expect(0, "unit(s) run", run=standin(BENCH_SQBCP, "--backend controlled", 1),
                        why=STANDIN_WHY),
    BENCH_SELF_ASK: Expect(0, "unit(s) run",
                           run=standin(BENCH_SELF_ASK, "--backend controlled", 1),
                           why=STANDIN_WHY),
    "veriplan report runs/sq --compare sqbcp:k=1 self-ask": Expect(0, "wrote runs/sq/report.md"),
    # docs/environments.md
    "veriplan env check --env household --limit 1": Expect(0, "== household: 1/1 won"),
    # docs/mcp.md
    "veriplan mcp --describe": Expect(0, '"validate_plan"'),
    "veriplan paper --list": Expect(0, "T1.WikiHow.violations.sqbcp"),
    SCHEMAS: Expect(0, ""),
    # docs/validate.md
    "cd src/veriplan/examples": Expect(0, ""),
    """printf '%s\\n' '{"id": "good", "domain": "blocks-domain.pddl", "problem": """
    """"blocks-problem.pddl", "plan_file": "blocks-plan.txt"}' '{"id": "bad", "domain": """
    """"blocks-domain.pddl", "problem": "blocks-problem.pddl", "plan": "(unstack c a)\\n"""
    """(pick-up b)"}' | veriplan validate --batch -""":
        Expect(1, '"failed_action": "(pick-up b)"'),
}

EMBEDDED = "the embedded model (prepared by make demo; it runs this command itself)"
LISTED: dict[str, str] = {
    # docs/RESULTS.md: the controlled AutoToS study (a shell loop over the five domains)
    "for d in 24game blocksworld prontoqa crossword sokoban; do":
        "the controlled AutoToS study's loop: 27 minutes (its store is committed)",
    "veriplan bench --matrix autotos:autotos_controlled_$d --data-dir ../shared/data "
    "--out results/autotos-controlled --no-cache": "the loop's body: 27 minutes in all",
    "done": "the loop's end",
    "python -m veriplan.methods.autotos.report_study results/autotos-controlled":
        "reads the committed store under results/ (the workspaces here hold no results/)",
    "veriplan paper autotos --no-run --store results/autotos-controlled":
        "reads the committed store under results/ (tests/papers read copies of it)",
    # docs/cli.md: the paper command
    "veriplan paper --all --markdown":
        "reads the committed stores: tests/papers/test_papers_claims_doc.py runs it",
    "veriplan paper aec --backend openai --base-url URL --model gpt-4 --model qwen3-14b "
    "--store runs/aec-paper": "a server of the user's, with placeholders",
    "veriplan paper drip --no-run --store runs/drip-paper --markdown":
        "a store of the user's (made by the command above it)",
    "veriplan paper sqbcp --quick --backend controlled":
        "48 units of the controlled model: tests/papers run the papers' protocols smaller",
    "make demo": "builds the environment this test runs in (docs/setup.md)",
    "time make demo": "builds the environment this test runs in (docs/setup.md)",
    "make test": "the whole suite, this test included",
    SOLVE: EMBEDDED,
    SOLVE_DRIP: EMBEDDED,
    "veriplan llm complete --prompt \"Name a colour.\" --backend llamacpp --model smollm2-135m "
    "--json": "an embedded model that make demo does not prepare (veriplan model prepare "
              "smollm2-135m fetches it)",
    "veriplan ask \"Make a toy car from a wooden table\" --fact \"you have a saw\"":
        "the embedded model, and a person answering its questions",
    "veriplan bench closed-loop --dataset mystery_blocksworld --data-dir ../shared/data "
    "--ablation random_regeneration --limit 20 --out runs/ablation "
    f"{SERVER} --model my-model": "a model server on 127.0.0.1:8000",
    "veriplan import mystery-planning Mystery_Planning/results/runs/"
    "mystery_blocksworld_gpt-4_500 --out runs/published --data-dir ../shared/data "
    "--skip-unknown": "a clone of the closed-loop authors' repository (not in the data)",
    "inspect view --log-dir inspect-logs": "a web server (the log viewer), until stopped",
    "inspect eval veriplan/planbench_blocksworld --model openai-api/local/my-model "
    "-T data_dir=../shared/data --limit 20 --max-retries 3 --timeout 600":
        "a model server on 127.0.0.1:8000",
    "inspect eval veriplan/planbench_mystery --model openai-api/local/my-model "
    "-T data_dir=../shared/data -T method=closed-loop -T config='{max_attempts: 2}' --limit 20":
        "a model server on 127.0.0.1:8000",
    "veriplan autotos run --domain 24game --data-dir ../shared/data --repeats 5 "
    f"{SERVER} --model m --out autotos-runs": "a model server on 127.0.0.1:8000",
    "veriplan bench autotos --dataset autotos_24game --data-dir ../shared/data "
    f"--seeds 0 1 2 3 4 {SERVER} --model m --out runs/autotos":
        "a model server on 127.0.0.1:8000",
    "veriplan env play scienceworld --task boil:0": "a person playing the game",
    "veriplan env play household --game eval/pick_heat_then_place/0": "a person playing the game",
    "veriplan env check --env scienceworld --per-task 1 --split unseen":
        "ScienceWorld's Java engine: 14 s for one task with --limit 1 (tests/envs check it)",
    "veriplan mcp": "a server on standard input, until its host closes it",
    "veriplan mcp --root ~/tasks --root ~/plans": "a server on standard input",
    "veriplan mcp --http --port 8765": "an HTTP server on 127.0.0.1:8765, until stopped",
    "veriplan mcp --backend openai --model gpt-4o": "a server on standard input, and an API key",
    "veriplan validate --domain D --problem P --plan PLAN":
        "placeholders for a PDDL 3 task of yours (tests/verify/test_pddl3.py judges the case)",
}


def all_commands() -> list[tuple[str, str]]:
    return [(doc, c) for doc in documents() for block in blocks(doc) for c in block]


def test_the_extraction_finds_the_commands():
    found = dict.fromkeys(c for _, c in all_commands())
    assert B_VALIDATE in found and SCHEMAS in found and "make demo" in found
    assert not [c for c in found if "..." in c], "a command with a literal '...'"


def test_every_command_is_recorded():
    """A command is run here or listed with its reason, never both; a record
    whose command left the docs goes too."""
    found = {c for _, c in all_commands()}
    assert not set(RUN) & set(LISTED)
    assert sorted(found - set(RUN) - set(LISTED)) == []
    assert sorted((set(RUN) | set(LISTED)) - found) == []


def _workspace(root: Path, data: Path) -> Path:
    """The checkout's layout in ``root``: the code, tests and venv linked, docs
    copied (a command writes docs/schemas), the data at ../shared/data."""
    repo = root / "repo"
    repo.mkdir(parents=True)
    for name in ("src", "tests", ".venv"):
        (repo / name).symlink_to(REPO / name)
    shutil.copytree(REPO / "docs", repo / "docs")
    (root / "shared").mkdir()
    (root / "shared" / "data").symlink_to(data)
    return repo


@dataclass(frozen=True)
class Outcome:
    document: str
    command: str
    code: int
    output: str
    seconds: float


# Pages that share a store (runs/published, runs/drip) run in order in one folder; a
# command already run there (the same command from the same folder) is not run again.
GROUPS = (("README.md", "docs/RESULTS.md", "docs/benchmarks.md", "docs/validate.md"),)


def _run_group(group: list[str], root: Path, data: Path, env: dict[str, str]) -> list[Outcome]:
    repo = _workspace(root, data)
    outcomes: list[Outcome] = []
    ran: set[tuple[Path, str]] = set()
    for document in group:
        for block in blocks(document):
            cwd = repo
            for command in block:
                expect = RUN.get(command)
                if expect is None or (cwd, command) in ran:
                    if command.startswith("cd "):
                        cwd = cwd / command[3:].strip()
                    continue
                ran.add((cwd, command))
                line = expect.run or command
                start = time.perf_counter()
                try:
                    done = subprocess.run(["bash", "-c", line], cwd=cwd, env=env, text=True,
                                          capture_output=True, stdin=subprocess.DEVNULL,
                                          timeout=120)
                    code, output = done.returncode, done.stdout + done.stderr
                except subprocess.TimeoutExpired:
                    code, output = -1, "timed out after 120 s"
                outcomes.append(Outcome(document, command, code, output,
                                        time.perf_counter() - start))
                if command.startswith("cd "):  # the rest of the block runs there
                    cwd = cwd / command[3:].strip()
    return outcomes


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory, data_dir) -> list[Outcome]:
    root = tmp_path_factory.mktemp("readme-commands")
    env = {k: v for k, v in os.environ.items() if k != "VERIPLAN_DATA"}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["VERIPLAN_CACHE"] = str(root / "cache")  # never the user's response cache
    grouped = {d for g in GROUPS for d in g}
    groups = [list(g) for g in GROUPS] + [[d for d in documents() if d not in grouped]]
    with ThreadPoolExecutor(max_workers=2) as pool:
        runs = [pool.submit(_run_group, g, root / f"group{i}", data_dir, env)
                for i, g in enumerate(groups)]
        return [o for r in runs for o in r.result()]


def test_commands_run_as_written(outcomes):
    assert outcomes
    wrong = [(o.document, o.command, o.code, o.output[-800:]) for o in outcomes
             if o.code != RUN[o.command].code or RUN[o.command].phrase not in o.output]
    assert wrong == []
