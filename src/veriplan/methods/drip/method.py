"""DRIP (the paper's Algorithm 1): decompose the goal backwards, level by
level; execute whatever is executable in the current condition, re-evaluating
after every execution until nothing changes; re-decompose what stays
unexecutable; stop when the goal holds or at MAX_ITER. The plan is the order
in which nodes were executed. It is mapped back to the user's own domain
(:mod:`veriplan.methods.drip.ontask`) and counts as solved only when the
validator accepts the mapped plan on exactly the user's domain and problem.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from veriplan.core.atom import Atom, ConditionPart, Literal
from veriplan.core.facts import State
from veriplan.core.plan import Step
from veriplan.domains.blocksworld import ActionSpace, action_space, goal_atoms
from veriplan.llm.client import LLM
from veriplan.methods.asking import logged_asker
from veriplan.methods.drip.actuators import (
    LLMActuator,
    SymbolicActuator,
    Verdict,
)
from veriplan.methods.drip.config import Config
from veriplan.methods.drip.decomposers import LLMDecomposer, RegressionDecomposer
from veriplan.methods.drip.ontask import check_on_task
from veriplan.methods.drip.tree import Kind, Node, Status, Tree
from veriplan.methods.failures import DripFailure, Failure
from veriplan.methods.records import Entry, Event, Observer, quiet
from veriplan.methods.result import PlanningProblem, Run, SolveResult, as_problem
from veriplan.methods.templates import environment
from veriplan.pddl.task import Task
from veriplan.verify import validate_plan

_ENV = environment(__package__)


def render(name: str, **values: object) -> str:
    return _ENV.get_template(name).render(**values)


@dataclass
class _Run:
    task: Task
    space: ActionSpace
    config: Config
    tree: Tree
    actuator: SymbolicActuator | LLMActuator
    goal: list[Atom]
    log: list[Entry]
    plan: list[Step] = field(default_factory=list)
    shadow: State | None = None  # the true state under the plan so far (None: plan broke)
    undos: list[dict] = field(default_factory=list)  # executions that undid goal facts
    conflicts: list[dict] = field(default_factory=list)  # executions refused (on_conflict)
    emit: Observer = quiet

    def judged(self, since: int, ok: bool | None, verdict: str) -> None:
        """The verdict on the model calls made since ``len(log) == since``."""
        for entry in self.log[since:]:
            if entry.call is not None and not entry.verdict:
                entry.ok, entry.verdict = ok, verdict

    def over_budget(self) -> bool:
        return len(self.log) >= self.config.max_llm_calls

    # ----- executability updates --------------------------------------------------------
    def settle(self) -> None:
        """Execute what is executable, re-evaluating from the top after every
        execution, until nothing changes (section 3.2)."""
        changed = True
        while changed and self.tree.root.status is not Status.DONE:
            changed = False
            for node in self.tree.in_order():
                if node.status.finished:
                    continue
                if self.over_budget():
                    return
                if self.visit(node):
                    changed = True
                    break

    def visit(self, node: Node) -> bool:
        """True when the node finished and the condition may have changed."""
        since = len(self.log)
        if node.kind is not Kind.ACTION:
            holds = self.actuator.holds(node)
            self.judged(since, None, f"{node.text}: " + ("holds" if holds else "does not hold"))
            if holds:
                self.finish(node, Status.DONE, "holds")
                return True
            return False
        verdict = self.actuator.judge(node)
        self.judged(since, None, f"{node.text}: {verdict}")
        if verdict is Verdict.ACHIEVED:
            self.finish(node, Status.DONE, "already achieved")
            return True
        if verdict is not Verdict.EXECUTABLE:
            return False
        if self.config.condition == "on_conflict":
            assert isinstance(self.actuator, SymbolicActuator)
            undone = self.actuator.undoes(node, self.goal)
            if undone:
                parent = self.tree.nodes[node.parent or 0]
                parent.with_condition = True
                self.conflicts.append({"node": node.id, "action": node.text,
                                       "parent": parent.text,
                                       "undoes": [str(a) for a in undone]})
                self.finish(node, Status.ABANDONED, "would undo " + ", ".join(map(str, undone)))
                self.emit(Event("conflict", f"{node.text} would undo "
                                + ", ".join(map(str, undone)), data=self.conflicts[-1]))
                return True
        self.execute(node)
        return True

    def execute(self, node: Node) -> None:
        assert node.step is not None
        if self.shadow is not None:  # the true model, for the undo analysis
            op = self.task.operator(node.step.name, node.step.args)
            if op.applicable(self.shadow):
                after = op.apply(self.shadow)
                undone = [str(a) for a in self.goal if _true(self.task, a, self.shadow)
                          and not _true(self.task, a, after)]
                if undone:
                    self.undos.append({"step": len(self.plan) + 1, "action": node.text,
                                       "undoes": undone})
                self.shadow = after
            else:
                self.shadow = None
        since = len(self.log)
        lost = getattr(self.actuator, "lost_condition", 0)
        self.actuator.execute(node)
        if getattr(self.actuator, "lost_condition", 0) > lost:
            self.judged(since, False, f"no 'Final condition:' after {node.text}; the previous "
                        "condition is kept")
        self.judged(since, None, f"condition after {node.text}")
        self.plan.append(node.step)
        self.finish(node, Status.DONE, "executed")
        self.emit(Event("execute", f"{len(self.plan)}: {node.text}",
                        data={"step": len(self.plan), "action": node.text}))

    def finish(self, node: Node, status: Status, how: str) -> None:
        node.status, node.how = status, how
        self.tree.skip_below(node)

    # ----- decomposition ----------------------------------------------------------------
    def needs_decomposition(self, node: Node) -> bool:
        if node.status is Status.PENDING:
            return not self.tree.active_children(node)
        if node.status is Status.EXPANDED:
            return all(c.status.finished for c in self.tree.active_children(node))
        return False

    def decompose(self, decomposer: LLMDecomposer | RegressionDecomposer) -> int:
        todo = [n for n in self.tree.in_order() if self.needs_decomposition(n)]
        for node in todo:
            if node.decompositions >= self.config.max_decompositions:
                self.finish(node, Status.FAILED, "no usable decomposition")
                continue
            if self.over_budget():
                break
            with_condition = self.config.condition == "always" or node.with_condition
            ancestors = self.tree.ancestors(node)
            since = len(self.log)
            result = decomposer.decompose(
                node, self.actuator.condition() if with_condition else None,
                self.actuator.state if with_condition else None, ancestors)
            node.decompositions += 1
            node.with_condition = False
            node.unread += result.unread
            # a node on the path to the root cannot be its own sub-goal (a cycle)
            children = [c for c in result.children if c.text not in ancestors]
            node.cycles += len(result.children) - len(children)
            if children:
                self.tree.skip_below(node)
                for c in children:
                    self.tree.add(node, c.kind, c.text, step=c.step, fact=c.fact)
                node.status = Status.EXPANDED
            read = ", ".join(c.text for c in result.children) or "(nothing usable)"
            self.judged(since, bool(children), f"{node.text} -> {read}" + (
                f" ({len(result.unread)} unread line(s))" if result.unread else ""))
            self.emit(Event("decompose", f"{node.text} -> {read}", data={
                "node": node.text, "children": [c.text for c in result.children],
                "unread": result.unread, "with_condition": with_condition}))
        return len(todo)


def _true(task: Task, atom: Atom, state: State) -> bool:
    bit = task.facts.find(atom)
    return bit is not None and bool(state >> bit & 1)


def solve(problem: PlanningProblem | Task, llm: LLM, config: Config = Config(), *,
          observer: Observer | None = None) -> SolveResult:
    """DRIP on a four-action Blocksworld task (mapped into
    ``config.action_space``; the plan is mapped back and validated on ``task``)."""
    task = as_problem(problem).task
    session = Run("drip", llm)
    space = action_space(config.action_space)
    stask = space.task(task)
    goal = goal_atoms(stask)
    log: list[Entry] = []
    ask = logged_asker(session.llm, config.temperature, config.seed, log)
    actuator: SymbolicActuator | LLMActuator
    if config.actuator == "symbolic":
        actuator = SymbolicActuator(stask, space)
    else:
        actuator = LLMActuator(stask, space, ask, render, config.actuator_max_tokens)
    decomposer: LLMDecomposer | RegressionDecomposer
    if config.decomposer == "regression":
        decomposer = RegressionDecomposer(stask, space, goal)
    else:
        decomposer = LLMDecomposer(stask, space, ask, render, config.max_tokens)
    run = _Run(stask, space, config, Tree(space.describe_goal(stask)), actuator, goal, log,
               shadow=stask.init, emit=observer or quiet)
    stop, iterations = "max_iter", 0
    for level in range(1, config.max_iter + 1):
        iterations = level
        run.settle()
        if run.tree.root.status is Status.DONE:
            stop = "goal"
            break
        if run.over_budget():
            stop = "call_budget"
            break
        if run.decompose(decomposer) == 0:
            stop = "stalled"
            break
    else:
        run.settle()  # the last level's children are judged once
        if run.tree.root.status is Status.DONE:
            stop = "goal"
    return _result(run, session, stop, iterations, task)


def _result(run: _Run, session: Run, stop: str, iterations: int, user: Task) -> SolveResult:
    verdict = validate_plan(run.task, run.plan)  # in the method's own action space
    on_task = check_on_task(user, run.space, run.plan)
    verified = verdict.valid and on_task.valid
    claimed = run.tree.root.status is Status.DONE
    failed_nodes = [n for n in run.tree.nodes if n.status is Status.FAILED]
    untargeted = (_untargeted(run, verdict.unmet_goals)
                  if verdict.failed_step is None and len(run.tree) > 1 else [])
    failure: Failure | None
    if verified:
        failure = None
    elif (mapping := on_task.failure(verdict.valid)) is not None:
        failure = mapping  # not verified on the user's task (see ontask.py)
    elif getattr(run.actuator, "lost_condition", 0):
        # an update answer had no "Final condition:"
        failure = DripFailure.ACTUATOR_LOST_CONDITION
    elif claimed:
        # the actuator believed the goal reached; the verifier did not
        failure = DripFailure.INVALID_PLAN
    elif untargeted:
        # no node ever aimed at some unmet goal fact
        failure = DripFailure.INCOMPLETE_DECOMPOSITION
    elif run.undos or run.conflicts:
        failure = DripFailure.GOAL_CONFLICT
    elif failed_nodes:
        failure = DripFailure.DECOMPOSITION
    else:
        failure = DripFailure(stop)  # max_iter, call_budget or stalled ("goal" is claimed)
    roles: dict[str, int] = {}
    for entry in run.log:
        roles[entry.role] = roles.get(entry.role, 0) + 1
    metrics = {
        "size": len(run.task.objects), "plan_length": len(on_task.plan),
        "method_plan": on_task.method_plan, "method_plan_length": len(run.plan),
        "tree_size": len(run.tree), "tree_depth": run.tree.depth, "iterations": iterations,
        "stop": stop, "calls_by_role": roles, "undos": run.undos, "conflicts": run.conflicts,
        "failed_nodes": len(failed_nodes), "untargeted_goals": untargeted,
        "unread_lines": sum(len(n.unread) for n in run.tree.nodes),
        "cycles_dropped": sum(n.cycles for n in run.tree.nodes),
        "actuator_unreadable": getattr(run.actuator, "unreadable", 0),
        "actuator_lost_condition": getattr(run.actuator, "lost_condition", 0),
        "action_space": run.space.name, **on_task.metrics}
    if verified:
        diagnosis = ""
    elif not run.plan:
        diagnosis = f"no plan (stopped: {stop})"
    elif not verdict.valid:
        diagnosis = f"in the {run.space.name} action space: {verdict.feedback()}"
    else:
        diagnosis = on_task.diagnosis
    transcript = list(run.log)
    # the final record: the tree, the plan on the user's task and its verdict there (the
    # method's own plan and its verdict in the method's space ride along in data)
    on_record = on_task.entry()
    transcript.append(Entry(None, "tree", response=run.tree.render(), plan=on_task.plan,
                            ok=verified, verdict=on_record.verdict if verified else diagnosis,
                            data={"nodes": [n.to_dict() for n in run.tree.nodes],
                                  "method_verdict": (f"valid in the {run.space.name} action "
                                                     "space" if verdict.valid
                                                     else verdict.feedback()),
                                  **on_record.data}))
    # the regression decomposer is a test double: its plans are not the model's
    solver = "llm" if run.config.decomposer == "llm" else "decomposer:regression"
    return session.result(verified=verified, plan=on_task.plan, attempts=iterations,
                          failure=failure, solved_by=solver if verified else None,
                          metrics=metrics, transcript=transcript, last_diagnosis=diagnosis,
                          credit=_credit(run.config, run.space.name, on_task.mapped),
                          scope=on_task.scope)


def _credit(config: Config, space: str, mapped: bool) -> str:
    """Which part the model did and which part veriplan did."""
    who = ("the model" if config.decomposer == "llm"
           else f"the {config.decomposer} decomposer (no model)")
    judge = ("the model also judged executability and tracked the state"
             if config.actuator == "llm" else
             "veriplan's simulator judged executability and executed each action")
    moves = ("the paper's tower moves" if space == "relaxed" else "the four Blocksworld actions")
    check = ("veriplan wrote the plan in your domain's actions and its validator checked it "
             "on your domain and problem" if mapped else
             "veriplan could not write the plan in your domain's actions, so nothing checked "
             "it on your task")
    return f"{who} decomposed the goal into sub-goals and actions ({moves}); {judge}; {check}"


def _untargeted(run: _Run, unmet: tuple[ConditionPart, ...]) -> list[str]:
    """Unmet goal facts that no node of the tree adds or names, as PDDL."""
    targeted: set[Atom] = set()
    for n in run.tree.nodes:
        if n.kind is Kind.FACT and n.fact is not None:
            targeted.add(Atom(*n.fact))
        elif n.kind is Kind.ACTION and n.step is not None:
            op = run.task.operator(n.step.name, n.step.args)
            targeted.update(run.task.atoms(op.add))
    return [g.pddl() for g in unmet
            if not (isinstance(g, Literal) and g.positive and g.atom in targeted)]
