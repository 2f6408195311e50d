"""Commands that talk to a language model: solve, llm complete, model."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from veriplan.cli.core import EXIT_FAIL, EXIT_OK, load_task_args
from veriplan.cli.jsondoc import emit
from veriplan.cli.runs import run_commands, shown
from veriplan.errors import ConfigError, ModelError

if TYPE_CHECKING:
    from veriplan.methods.result import SolveResult


def add_llm_options(p: argparse.ArgumentParser) -> None:
    from veriplan.llm.registry import DEFAULT_BACKEND, available

    g = p.add_argument_group("language model")
    g.add_argument("--backend", default=DEFAULT_BACKEND, choices=sorted(available()),
                   help=f"default {DEFAULT_BACKEND} (embedded, offline)")
    g.add_argument("--model", help="model name: an embedded model for llamacpp "
                                   "(default qwen2.5-coder-1.5b), or the server's model name")
    g.add_argument("--model-path", help="any GGUF file for llamacpp (or set VERIPLAN_MODEL)")
    g.add_argument("--base-url", help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1")
    g.add_argument("--api-key", help="API key (default: OPENAI_API_KEY / ANTHROPIC_API_KEY)")
    g.add_argument("--cassette", help="recorded answers (JSONL) for --backend replay")
    g.add_argument("--record", help="append every answer to this cassette file")
    g.add_argument("--script", help="'module:function' answering requests (--backend "
                                    "scripted, a test double)")
    g.add_argument("--no-cache", action="store_true", help="do not read or write the cache")
    g.add_argument("--cache-path", help="SQLite response cache (default "
                                        "~/.cache/veriplan/llm-cache.sqlite)")
    g.add_argument("--max-in-flight", type=int, default=8, help="concurrent requests")
    g.add_argument("--prices", help="JSON price table {model: [in, out] USD per 1M tokens}")
    g.add_argument("--temperature", type=float, default=None, help="sampling temperature "
                                                                   "(default: the method's)")
    g.add_argument("--max-tokens", type=int, default=None)


def add_parsers(sub, task_args) -> None:
    from veriplan.methods import DEFAULT_METHOD, available_methods

    s = sub.add_parser("solve", help="ask the model for a plan, verify it, feed the "
                                     "diagnosis back, and retry (the main job)")
    task_args(s, positional=False)
    s.add_argument("--planbench-config", help="PlanBench YAML config: PlanBench's prompt and "
                                              "natural-language plans (default: PDDL prompt)")
    s.add_argument("--method", default=DEFAULT_METHOD, choices=available_methods(),
                   help="closed-loop generate-verify-repair (default), PlanBench "
                        "back-prompting or direct generation, DRIP goal decomposition, or "
                        "the CoT / ReAct baselines (the last three on Blocksworld); any "
                        "method registered through the veriplan.methods entry points")
    s.add_argument("--max-attempts", type=int, help="attempts in all (default: the "
                                                   "method's, 2 for closed-loop, 5 for "
                                                   "backprompt)")
    s.add_argument("--fallback", choices=["none", "bfs", "planner"],
                   help="closed-loop: search when the model fails (reported as fallback)")
    s.add_argument("--actuator", choices=["symbolic", "llm"],
                   help="drip: who judges executability (default symbolic)")
    s.add_argument("--config", action="append", default=[], metavar="KEY=VALUE",
                   help="a method setting, e.g. action_space=standard (repeatable)")
    s.add_argument("--json", action="store_true", help="print one JSON object at the end")
    add_llm_options(s)

    c = sub.add_parser("llm", help="language-model utilities")
    lsub = c.add_subparsers(dest="llm_command", required=True)
    comp = lsub.add_parser("complete", help="one completion, through the cache")
    comp.add_argument("--prompt", required=True, help="the user message ('-' reads stdin)")
    comp.add_argument("--system", help="a system message")
    comp.add_argument("--seed", type=int, default=0)
    comp.add_argument("--json", action="store_true", help="print text, usage and cache status")
    add_llm_options(comp)

    m = sub.add_parser("model", help="embedded models: list, prepare, path")
    msub = m.add_subparsers(dest="model_command", required=True)
    ml = msub.add_parser("list", help="the embedded models and whether they are prepared")
    ml.add_argument("--json", action="store_true", help="print the models as JSON")
    for name in ("prepare", "path"):
        q = msub.add_parser(name, help=f"{name} an embedded model")
        q.add_argument("name", nargs="?", default=None, help="default qwen2.5-coder-1.5b")
        q.add_argument("--json", action="store_true", help="print the model's file as JSON")


def _progress():
    """A rich progress bar for model preparation (stderr)."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    bar = Progress(TextColumn("{task.description}"), BarColumn(), TextColumn(
        "{task.completed}/{task.total}"), TimeElapsedColumn(), transient=False,
        console=_console(stderr=True))
    state: dict = {}

    def update(stage: str, done: int, total: int) -> None:
        if "task" not in state:
            bar.start()
            state["task"] = bar.add_task("preparing model", total=total)
        bar.update(state["task"], completed=done, description=stage)
        if stage == "verifying":
            bar.stop()

    return update


def _console(stderr: bool = False):
    from rich.console import Console

    return Console(stderr=stderr, highlight=False)


def build_llm(args: argparse.Namespace):
    import os

    from veriplan.llm import LLM, PriceTable, ResponseCache, create_backend, default_cache_path
    from veriplan.llm.backends.replay import CassetteRecorder

    options = {"model": args.model, "model_path": args.model_path or os.environ.get(
        "VERIPLAN_MODEL"), "base_url": args.base_url, "api_key": args.api_key,
        "cassette": args.cassette, "script": args.script, "progress": _progress()}
    backend = create_backend(args.backend, **{k: v for k, v in options.items() if v is not None})
    cache = None if args.no_cache else ResponseCache(args.cache_path or default_cache_path())
    prices = PriceTable().load(args.prices) if args.prices else PriceTable()
    recorder = CassetteRecorder(args.record) if args.record else None
    return LLM(backend, cache=cache, max_in_flight=args.max_in_flight, prices=prices,
               recorder=recorder)


def method_options(args: argparse.Namespace) -> dict[str, object]:
    """Method settings from the command line: ``--config KEY=VALUE`` pairs and
    the shortcut flags a user gave (``--max-attempts``, ``--fallback``,
    ``--actuator``, ``--temperature``, ``--max-tokens``); a setting the method
    does not have is rejected when its config is made."""
    options: dict[str, object] = {}
    for kv in args.config:
        if "=" not in kv:
            raise ConfigError(f"--config {kv!r}: expected KEY=VALUE")
        k, v = kv.split("=", 1)
        options[k.strip()] = v.strip()
    for flag in ("max_attempts", "fallback", "actuator", "temperature", "max_tokens",
                 "ablation"):
        value = getattr(args, flag, None)
        if value is not None:
            options[flag] = value
    return options


def _solve(args: argparse.Namespace) -> int:
    from rich.markup import escape

    from veriplan.cli.render import event_printer
    from veriplan.methods import PlanningProblem, get_method
    from veriplan.planio import PlanBenchConfig

    spec = get_method(args.method)
    if spec.problem != "pddl":
        raise ConfigError(f"method {args.method} does not plan for a PDDL task "
                          f"(it takes {spec.problem} problems): use "
                          f"{shown(run_commands(args.method))}")
    settings = spec.make_config(method_options(args))
    task = load_task_args(args)
    cfg = PlanBenchConfig.from_yaml(args.planbench_config) if args.planbench_config else None
    problem = PlanningProblem(task, cfg, name=Path(args.problem).stem)
    session = build_llm(args).session()
    console = _console(stderr=args.json)
    result = spec.solve(problem, session, settings, observer=event_printer(console))
    if args.json:
        emit("solve", result.to_dict())
        return EXIT_OK if result.verified else EXIT_FAIL
    console.rule("result")
    for line in result_lines(result):
        console.print(escape(line))
    if result.credit:
        console.print(f"who did what: {escape(result.credit)}")
    console.print(f"{result.attempts} attempt(s), {result.llm_calls} LLM call(s), "
                  f"{result.tokens} tokens, {result.seconds:.1f}s, backend "
                  f"{result.backend}, model {result.model}")
    return EXIT_OK if result.verified else EXIT_FAIL


def result_lines(result: SolveResult) -> list[str]:
    """What ``veriplan solve`` says about a result, before who did what: the
    verdict, naming what it was checked on (``result.verified_on``), and the
    plan when verified."""
    from veriplan.core.verdict import Scope

    if result.verified:
        who = ("model-solved" if result.solved_by == "llm" else
               f"found by {result.solved_by}, not by the model")
        head = [f"plan {result.verified_on} by veriplan's validator", f"({who}):"]
        return head + [f"  {step}" for step in result.plan]
    why = f" ({result.failure})" if result.failure else ""
    if result.scope is Scope.PLAN_IN_METHOD_SPACE:
        return [f"not verified on your task{why}: {result.last_diagnosis}",
                "(the method's own plan is kept for auditing: --json, metrics.method_plan)"]
    return [f"no plan verified {result.scope.describes} within budget{why}; last "
            f"diagnosis: {result.last_diagnosis}"]


def _llm(args: argparse.Namespace) -> int:
    from veriplan.llm import LLMRequest

    prompt = sys.stdin.read() if args.prompt == "-" else args.prompt
    llm = build_llm(args)
    request = LLMRequest.of(prompt, system=args.system, temperature=args.temperature or 0.0,
                            max_tokens=args.max_tokens or 512, seed=args.seed)
    resp = llm.complete(request)
    if args.json:
        out = resp.to_dict()
        out.pop("extra", None)
        out["cost"] = llm.usage.calls[-1].cost
        out["cache"] = llm.cache.stats() if llm.cache is not None else None
        emit("llm_complete", out)
    else:
        print(resp.text)
    return EXIT_OK


def _model(args: argparse.Namespace) -> int:
    from veriplan.llm.models import DEFAULT_MODEL, MODELS, model_path, prepare_model

    if args.model_command == "list":
        models = [{"name": name, "default": name == DEFAULT_MODEL,
                   "description": spec.description, "prepared": model_path(name).is_file(),
                   "path": model_path(name)} for name, spec in MODELS.items()]
        if args.json:
            emit("model_list", {"models": models})
            return EXIT_OK
        for m in models:
            default = " (default)" if m["default"] else ""
            ready = "prepared" if m["prepared"] else "not prepared"
            print(f"{m['name']}{default}: {m['description']} [{ready}]")
        return EXIT_OK
    name = args.name or DEFAULT_MODEL
    if args.model_command == "path":
        p = model_path(name)
        if not p.is_file():
            raise ModelError(f"{name} is not prepared: run veriplan model prepare {name}")
        if args.json:
            emit("model_path", {"name": name, "path": p, "bytes": p.stat().st_size})
        else:
            print(p)
        return EXIT_OK
    path = Path(prepare_model(name, progress=_progress()))
    size = path.stat().st_size
    if args.json:
        emit("model_prepare", {"name": name, "path": path, "bytes": size, "verified": True})
    else:
        print(f"{name}: {path} ({size:,} bytes, verified)")
    return EXIT_OK


COMMANDS = {"solve": _solve, "llm": _llm, "model": _model}
