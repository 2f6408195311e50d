"""``veriplan aec run|calibrate|select-tau``: one AEC episode with its decisions
as they happen; B.2's calibration fitted on training games; tau chosen on a
validation split (Section 4.4) and recorded for later runs. Their text goes
through the writer the command line gives (:mod:`veriplan.cli.output`)."""

from __future__ import annotations

import argparse
import json
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from pathlib import Path

from veriplan.cli.core import EXIT_FAIL, EXIT_OK
from veriplan.cli.jsondoc import emit
from veriplan.cli.output import Writer, stdout
from veriplan.errors import ConfigError
from veriplan.llm.binding import TaskRef, bound

# the methods `veriplan aec run --method` offers (episodes in an environment)
ENV_METHODS = ("aec", "aec-direct", "aec-react", "wkm", "query-only")


def runs(method: str) -> list[list[str]]:
    """The commands of this module that run ``method`` (the hint of ``veriplan solve``)."""
    if method not in ENV_METHODS:
        return []
    return [["aec", "run", "--method", method, "--env", "ENV", "--task", "TASK"]]


def add_parsers(sub) -> None:
    from veriplan.cli.env_commands import add_set_options
    from veriplan.cli.llm_commands import add_llm_options
    from veriplan.methods.aec.tau import CANDIDATES

    a = sub.add_parser("aec", help="AEC: run an episode, fit the predictor's calibration, "
                                   "choose tau on a validation split")
    asub = a.add_subparsers(dest="aec_command", required=True)

    r = asub.add_parser("run", help="one episode of AEC (or a baseline) in an environment")
    r.add_argument("--env", required=True, help="household or scienceworld (any registered "
                                                "environment)")
    r.add_argument("--task", required=True, help="household: SPLIT/TYPE/N (eval/pick_and_place/"
                                                 "0); scienceworld: TASK:VARIATION (boil:0)")
    r.add_argument("--method", default="aec", choices=ENV_METHODS)
    r.add_argument("--config", action="append", default=[], metavar="KEY=VALUE",
                   help="a method setting, e.g. tau_file=household (repeatable)")
    r.add_argument("--json", action="store_true", help="print the result as one JSON object")
    add_llm_options(r)

    c = asub.add_parser("calibrate", help="fit the predictor's calibration (appendix B.2) on "
                                          "training episodes and save it by name")
    c.add_argument("--dataset", required=True, help="training episodes, e.g. household_train")
    c.add_argument("--name", required=True, help="the calibration's name (or a .json path); "
                                                 "runs load it with --config calibration=NAME")
    c.add_argument("--data-dir", help="benchmark data folder (default: VERIPLAN_DATA)")
    c.add_argument("--limit", type=int, help="first N episodes")
    c.add_argument("--workers", type=int, default=1, help="episodes in parallel")
    c.add_argument("--config", action="append", default=[], metavar="KEY=VALUE",
                   help="predictor settings (ensemble, predictor_temperature, hypotheses, seed)")
    c.add_argument("--json", action="store_true", help="print the fit and its file as JSON "
                                                      "(progress on stderr)")
    add_llm_options(c)

    t = asub.add_parser("select-tau", help="run AEC on a validation split for each candidate "
                                           "tau and record the best")
    t.add_argument("--dataset", required=True, help="validation episodes, e.g. household_valid")
    t.add_argument("--name", required=True, help="the tau file's name (or a .json path); runs "
                                                 "load it with --config tau_file=NAME")
    t.add_argument("--taus", type=float, nargs="+", default=list(CANDIDATES),
                   help=f"candidates (default {' '.join(map(str, CANDIDATES))})")
    t.add_argument("--data-dir", help="benchmark data folder (default: VERIPLAN_DATA)")
    t.add_argument("--limit", type=int, help="first N episodes")
    t.add_argument("--workers", type=int, default=1, help="episodes in parallel")
    t.add_argument("--out", help="run store of the selection runs (default "
                                 "veriplan-runs/select-tau-DATASET); re-running resumes")
    t.add_argument("--config", action="append", default=[], metavar="KEY=VALUE",
                   help="other AEC settings, the same for every candidate (epsilon stays "
                        "fixed)")
    t.add_argument("--json", action="store_true", help="print the candidates and the choice "
                                                      "as JSON")
    add_llm_options(t)

    k = asub.add_parser("check-store", help="replay gold paths / walkthroughs with an AEC "
                                            "agent's grounded store w, checked against the "
                                            "simulator on every step (w must never be "
                                            "contradicted)")
    add_set_options(k)
    k.add_argument("--skip", type=int, default=0, help="leave out the first N tasks of the set "
                                                       "(to continue a sweep)")
    k.add_argument("--from-variation", type=int, default=0, metavar="K",
                   help="scienceworld, with --per-task N: variations K..K+N-1 of each task of "
                        "the split (counted from 0 within the split)")
    k.add_argument("--no-frame-rules", action="store_true",
                   help="the control: w keeps every fact until the agent's own action may "
                        "change it (AEC's store before issue 30)")
    k.add_argument("--no-doors", action="store_true",
                   help="scienceworld: check w against the object tree only, leaving its door "
                        "facts unchecked (as every check-store figure before issue 33); by "
                        "default the engine's door states are part of the truth (about 1 ms a "
                        "step against about 60 ms for the object tree)")
    k.add_argument("--workers", type=int, default=1, metavar="N",
                   help="N processes, each with its own simulator (task i to process i mod N)")
    k.add_argument("--json", action="store_true", help="print each set's counts and episodes "
                                                      "as JSON at the end (progress on stderr)")


def _options(args: argparse.Namespace) -> dict[str, object]:
    from veriplan.cli.llm_commands import method_options

    return method_options(args)


# ----- run -------------------------------------------------------------------------------------
def _run(args: argparse.Namespace, out: Writer) -> int:
    from veriplan.cli.llm_commands import build_llm
    from veriplan.envs.base import EnvTask
    from veriplan.methods import get_method

    spec = get_method(args.method)
    config = spec.make_config(_options(args))
    task = EnvTask(args.env, args.task, split=args.task.split("/")[0] if "/" in args.task
                   else "", task_type=args.task.split("/")[1] if args.task.count("/") == 2
                   else args.task.split(":")[0])

    def show(event) -> None:
        if not args.json:
            flag = "" if event.ok is None else (" [ok]" if event.ok else " [no]")
            out(f"{event.kind:>11}{flag} {event.text}", flush=True)

    llm = build_llm(args)
    # a controlled model learns the household game it answers about (veriplan.llm.binding)
    ref = TaskRef(f"household_{task.split}", args.task) if args.env == "household" else None
    with bound(llm.backend, ref) if ref is not None else nullcontext():
        result = spec.solve(task, llm.session(), config, observer=show)
    m = result.metrics
    if args.json:
        emit("aec_run", result.to_dict())
    else:
        won = f"won (the task done, {result.verified_on})"
        out(f"{won if result.verified else 'not won'}"
              + (f" ({result.failure}: {result.last_diagnosis})" if not result.verified else "")
            + f"; {m.get('commits', 0)} commit(s): {m.get('grounded_commits', 0)} verified "
            f"on grounded facts, {m.get('unchecked_commits', 0)} checked by nothing grounded"
            + f"; {m.get('env_steps', 0)} steps, {m.get('queries', 0)} queries, "
            f"{m.get('replans', 0)} replanning rounds, {result.llm_calls} LLM calls, "
            f"{result.tokens} tokens, {result.seconds:.1f}s")
    return EXIT_OK if result.verified else EXIT_FAIL


# ----- calibrate ---------------------------------------------------------------------------------
def _calibrate(args: argparse.Namespace, out: Writer) -> int:
    from veriplan.bench.datasets import load_dataset
    from veriplan.cli.llm_commands import build_llm
    from veriplan.methods import get_method
    from veriplan.methods.aec.calibrate import collect, fit
    from veriplan.methods.aec.config import PredictorConfig
    from veriplan.methods.aec.predictor import store_path

    given = _options(args)
    fields = set(PredictorConfig.__dataclass_fields__)
    unknown = set(given) - fields
    if unknown:
        raise ConfigError(f"aec calibrate: no setting {', '.join(sorted(unknown))}; its "
                          f"settings are {', '.join(sorted(fields))}")
    config = get_method("wkm").make_config(given)  # the predictor's settings
    dataset = load_dataset(args.dataset, args.data_dir)
    llm = build_llm(args)
    target = store_path("calibration", args.name)
    samples_file = target.with_name(target.stem + ".samples.jsonl")
    samples_file.parent.mkdir(parents=True, exist_ok=True)
    done = set()
    if samples_file.is_file():
        for line in samples_file.read_text().splitlines():
            if line.strip():
                done.add(json.loads(line)["instance"])
    todo = [i for i in dataset.take(args.limit) if i.id not in done]
    lock = threading.Lock()

    def one(inst) -> None:
        with bound(llm.backend, TaskRef(args.dataset, inst.id)):  # a controlled model's game
            got = collect(inst.problem("env"), llm.session(), config)
        with lock, samples_file.open("a") as fh:
            fh.write(json.dumps({"instance": inst.id, "samples": got}) + "\n")
            out(f"{inst.id}: {len(got)} labelled prediction(s)", flush=True)

    with ThreadPoolExecutor(max_workers=max(1, args.workers)) as pool:
        list(pool.map(one, todo))
    samples = [s for line in samples_file.read_text().splitlines() if line.strip()
               for s in json.loads(line)["samples"]]
    if not samples:
        raise ConfigError(f"no labelled predictions from {args.dataset}: nothing to fit")
    cal = fit(samples, args.name, fitted_on=args.dataset, model=llm.model,
              backend=llm.name, ensemble=config.ensemble,
              predictor_temperature=config.predictor_temperature)
    path = cal.save(target)
    wrong = sum(cal.wrong)
    if args.json:
        emit("aec_calibrate", {
            "name": args.name, "path": path, "dataset": args.dataset,
            "episodes": len(done) + len(todo), "predictions": len(samples),
            "right": cal.samples - wrong, "wrong": wrong,
            "without_majority": len(samples) - cal.samples,
            "sigma_by_bin": list(cal.table()) if cal.samples else None,
            "backend": llm.name, "model": llm.model})
        return EXIT_OK
    fitted = ("sigma by bins of raw uncertainty: " + " ".join(f"{x:.2f}" for x in cal.table())
              if cal.samples else "nothing to fit: sigma = the raw uncertainty u")
    out(f"{len(samples)} predictions ({cal.samples - wrong} right, {wrong} wrong, "
        f"{len(samples) - cal.samples} without a majority, left out of the fit) from "
        f"{len(done) + len(todo)} episode(s); {fitted}")
    out(f"saved {path} (use --config calibration={args.name})")
    return EXIT_OK


# ----- select-tau --------------------------------------------------------------------------------
def _select_tau(args: argparse.Namespace, out: Writer) -> int:
    from veriplan.bench.runner import run_sweep
    from veriplan.bench.store import RunStore
    from veriplan.bench.units import BackendSpec, SweepPlan
    from veriplan.llm import default_cache_path
    from veriplan.methods import get_method
    from veriplan.methods.aec.tau import choose, save_tau, summarize

    given = _options(args)
    if "tau" in given or "tau_file" in given:
        raise ConfigError("select-tau chooses tau: give the candidates with --taus, not "
                          "--config tau=...")
    spec_m = get_method("aec")
    base = spec_m.make_config(given)
    typed = {k: getattr(base, k) for k in given}
    taus = sorted(set(args.taus))
    for t in taus:
        spec_m.make_config({**given, "tau": t})
    backend = BackendSpec.of(args.backend, args.model, model_path=args.model_path,
                             base_url=args.base_url, cassette=args.cassette, script=args.script)
    runs_dir = Path(args.out or Path("veriplan-runs") / f"select-tau-{args.dataset}")
    plan = SweepPlan(["aec"], [args.dataset], [backend],
                     [{**given, "tau": t} for t in taus], [base.seed], args.limit)
    cache = None if args.no_cache else Path(args.cache_path or default_cache_path())
    progress = run_sweep(plan, runs_dir, data_root=args.data_dir, workers=args.workers,
                         cache_path=cache)
    results = []
    for rec in RunStore(runs_dir).records():
        cfg = json.loads(rec.config)
        rest = {k: v for k, v in cfg.items() if k != "tau"}
        if (rec.method == "aec" and rec.dataset == args.dataset and rec.status == "done"
                and rest == typed and cfg.get("tau") in taus):
            results.append((cfg["tau"], rec.instance, rec.result_dict()))
    summary = summarize(results)
    chosen = choose(summary, default=base.tau)
    path = save_tau(args.name, chosen, summary, dataset=args.dataset, epsilon=base.epsilon,
                    calibration=base.calibration, settings=typed, backend=backend.name,
                    model=backend.model_name(), runs=str(runs_dir))
    if args.json:
        emit("aec_select_tau", {
            "name": args.name, "path": path, "dataset": args.dataset, "runs": runs_dir,
            "epsilon": base.epsilon, "candidates": summary, "chosen": chosen,
            "done": progress.done, "skipped": progress.skipped, "errors": progress.errors})
        return EXIT_OK if progress.errors == 0 else EXIT_FAIL
    for s in summary:
        mark = "  <- chosen" if chosen["selected"] and s["tau"] == chosen["tau"] else ""
        out(f"tau {s['tau']:<5} success {s['success']:.3f}  replanning rounds "
            f"{s['replanning_rounds']:.2f}  queries {s['queries']:.2f}  steps "
            f"{s['env_steps']:.1f}  ({s['episodes']} episodes){mark}")
    if summary and summary[0]["left_out"]:
        out(f"{summary[0]['left_out']} episode(s) left out of every candidate: the "
            "environment failed (env_error) in at least one candidate's run")
    if chosen["selected"]:
        out(f"tau {chosen['tau']} selected; decided by {chosen['decided_by']} "
            f"({chosen['reason']})")
        if chosen["decided_by"] == "queries":
            out("note: the fewest queries decided, not success or replanning rounds: a "
                "later comparison of queries with this tau is partly made by the choice")
    else:
        out(f"no tau selected: {chosen['reason']}; the tau file keeps AEC's default tau "
            f"{chosen['tau']} and says it was not selected (decided by "
            f"{chosen['decided_by']})")
    out(f"{progress.done} unit(s) run, {progress.skipped} already in {runs_dir}; epsilon "
        f"{base.epsilon} (fixed); saved {path} (use --config tau_file={args.name})")
    return EXIT_OK if progress.errors == 0 else EXIT_FAIL


# ----- check-store -------------------------------------------------------------------------------
def _check_store(args: argparse.Namespace, out: Writer) -> int:
    import time

    from veriplan.envs.check import select_ids
    from veriplan.methods.aec.storecheck import check_stores_in

    ok = True
    sets: list[dict[str, object]] = []
    for name in (["household", "scienceworld"] if args.env == "all" else [args.env]):
        if args.from_variation and args.per_task:
            seen: dict[str, int] = {}
            ids = []
            for tid in select_ids(name, args.split):
                i = seen[tid.rsplit(":", 1)[0]] = seen.get(tid.rsplit(":", 1)[0], -1) + 1
                if args.from_variation <= i < args.from_variation + args.per_task:
                    ids.append(tid)
            ids = ids[args.skip:]
        else:
            ids = select_ids(name, args.split, args.per_task)[args.skip:]
        ids = ids[:args.limit] if args.limit else ids
        start = time.perf_counter()

        def show(ep, name: str = name) -> None:
            bad = f"; contradicted: {ep.contradicted[:3]}" if ep.contradicted else ""
            extra = f"; {ep.problem}" if ep.problem else ""
            out(f"{name} {ep.task_id}: {'won' if ep.won else 'NOT WON'} in {ep.steps} "
                f"steps; w {ep.facts} facts, {ep.derived} derived, {ep.doors} door facts"
                f"{bad}{extra}", flush=True)

        results = check_stores_in(name, ids, show, frame_rules=not args.no_frame_rules,
                                  workers=args.workers, doors=not args.no_doors)
        won = sum(r.won for r in results)
        bad = sum(len(r.contradicted) for r in results)
        ok &= bad == 0 and won == len(results)
        if args.json:
            sets.append({"env": name, "frame_rules": not args.no_frame_rules,
                         "doors": not args.no_doors,
                         "tasks": len(results), "won": won,
                         "facts": sum(r.facts for r in results),
                         "derived": sum(r.derived for r in results),
                         "door_facts": sum(r.doors for r in results), "contradicted": bad,
                         "seconds": time.perf_counter() - start, "episodes": results})
            continue
        control = " without frame rules (the control)" if args.no_frame_rules else ""
        truth = ""
        if name == "scienceworld":
            truth = (" (door facts not checked)" if args.no_doors
                     else f" ({sum(r.doors for r in results)} of them door facts)")
        out(f"== {name}: {won}/{len(results)} won; AEC's w{control}: "
            f"{sum(r.facts for r in results)} facts and {sum(r.derived for r in results)} "
            f"derived facts checked{truth}, {bad} contradicted by the simulator "
            f"({time.perf_counter() - start:.0f} s)", flush=True)
    if args.json:
        emit("aec_check_store", {"ok": bool(ok), "sets": sets})
    return EXIT_OK if ok else EXIT_FAIL


def _aec(args: argparse.Namespace, out: Writer = stdout) -> int:
    """The ``aec`` sub-command ``args`` names, its text through ``out`` (the
    command line's standard output unless another writer is given)."""
    return {"run": _run, "calibrate": _calibrate, "select-tau": _select_tau,
            "check-store": _check_store}[args.aec_command](args, out)


COMMANDS = {"aec": _aec}
