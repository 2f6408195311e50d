"""The documents the MCP tools return, as pydantic models: the SDK publishes each
model's JSON schema as the tool's ``outputSchema`` and checks every result
against it; ``docs/schemas/`` holds the same schemas, versioned
(nothing regenerates them: tests/mcp compare the two).

Every document names its schema in ``schema_id`` (``veriplan.<document>/<version>``);
a field is only ever added within a version, never renamed or retyped.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = 1


def schema_id(document: str) -> str:
    return f"veriplan.{document}/{SCHEMA_VERSION}"


class _Doc(BaseModel):
    model_config = ConfigDict(extra="forbid")


class LineAside(_Doc):
    """A line of the plan text that was not read as a step."""

    line: int = Field(description="1-based line number in the plan text")
    text: str
    reason: str


class FindingDoc(_Doc):
    """One typed reason the verdict is not valid (veriplan.core.verdict.Finding)."""

    kind: str = Field(description="unread, unknown_action, bad_arguments, precondition, "
                                  "goal, empty, ...")
    step: int | None = Field(description="1-based step; null: the plan as a whole")
    subject: str
    detail: str


class FailedStep(_Doc):
    index: int = Field(description="1-based number of the first step that cannot run")
    action: str
    kind: str = Field(description="precondition, unknown-action, wrong-arity, "
                                  "unknown-object, wrong-type")
    detail: str
    unsatisfied: list[str] = Field(description="its preconditions false where it runs, "
                                               "as PDDL")


class RepairHint(_Doc):
    """What could make a missing literal true (as the closed loop's feedback says)."""

    literal: str = Field(description="the false precondition or unmet goal, as PDDL")
    before_step: int | None = Field(description="the step that needs it (null: the goal)")
    actions: list[str] = Field(description="action schemas whose effects make it true")
    ground_actions: list[str] = Field(
        description="ground actions (at most a few) that make it true and can run in the "
                    "state where it is missing")
    not_yet_applicable: list[str] = Field(
        description="ground actions (at most a few) that make it true but cannot run in "
                    "that state: their own preconditions must be made true first")


class StateDoc(_Doc):
    step: int = Field(description="0: the initial state; k: after step k")
    action: str | None
    atoms: list[str]


class ValidatePlanDoc(_Doc):
    """The typed verdict on one plan."""

    schema_id: Literal["veriplan.validate_plan/1"] = "veriplan.validate_plan/1"
    verdict: Literal["valid", "invalid", "unknown"]
    valid: bool
    scope: str = Field(description="what was checked: plan_on_task")
    steps: list[str] = Field(description="the steps read, as PDDL")
    steps_executed: int
    unread: list[LineAside] = Field(description="lines that look like steps but could not "
                                                "be read: a plan with one is never valid")
    prose: list[LineAside] = Field(description="lines passed over as prose (explanations), "
                                               "which do not make the plan invalid")
    failed_step: FailedStep | None
    unmet_goals: list[str]
    findings: list[FindingDoc]
    repair_hints: list[RepairHint]
    cost: float
    metric: float | None = Field(default=None, description="the problem's :metric on the "
                                 "final state (VAL's final value); null without one")
    violations: dict[str, int] | None = Field(
        default=None, description="PDDL 3: each preference name with violated instances and "
                                  "their number (VAL's Violations); null without preferences")
    constraints: list[str] = Field(default_factory=list, description="PDDL 3: the hard "
                                   "trajectory constraints the plan breaks, as PDDL")
    feedback: str = Field(description="the diagnosis in words")
    states: list[StateDoc] | None = Field(
        default=None, description="with trace: the state before each step and after the "
                                  "last executed one")
    states_truncated: bool = False


class BatchRecordDoc(_Doc):
    index: int = Field(description="1-based position of the item")
    id: str | int | float | bool | None
    verdict: Literal["valid", "invalid", "unknown"] | None = Field(
        description="null when the item could not be judged")
    steps: int | None
    unread: list[LineAside]
    failed_step: int | None
    failed_action: str | None
    failure: str | None
    detail: str | None
    unsatisfied: list[str]
    unmet_goals: list[str]
    metric: float | None = Field(default=None, description="the problem's :metric on the "
                                 "final state; null without one")
    violations: dict[str, int] | None = Field(
        default=None, description="PDDL 3: each preference name with violated instances and "
                                  "their number; null without preferences")
    constraints: list[str] = Field(default_factory=list, description="PDDL 3: the hard "
                                   "trajectory constraints the plan breaks, as PDDL")
    error: dict[str, str | int | None] | None = Field(
        description="why the item was not judged: kind, message, file, line, col")


class ValidateBatchDoc(_Doc):
    schema_id: Literal["veriplan.validate_batch/1"] = "veriplan.validate_batch/1"
    total: int
    judged: int
    valid: int
    invalid: int
    unjudged: int
    stopped: str | None = Field(description="why the batch stopped before the end (the time "
                                            "limit), else null")
    records: list[BatchRecordDoc]


class SimulateDoc(_Doc):
    schema_id: Literal["veriplan.simulate/1"] = "veriplan.simulate/1"
    verdict: Literal["valid", "invalid", "unknown"]
    steps_executed: int
    failed_step: FailedStep | None
    unmet_goals: list[str]
    states: list[StateDoc]
    truncated: bool = Field(description="true when more states exist than were returned")
    feedback: str


class ApplicableActionsDoc(_Doc):
    schema_id: Literal["veriplan.applicable_actions/1"] = "veriplan.applicable_actions/1"
    after_steps: int = Field(description="steps of the given plan executed first (0: the "
                                         "initial state)")
    state: list[str]
    actions: list[str]
    offset: int
    total: int
    next_offset: int | None = Field(description="pass as offset for the next page; null: "
                                                "no more")


class SolveClassicalDoc(_Doc):
    schema_id: Literal["veriplan.solve_classical/1"] = "veriplan.solve_classical/1"
    planner: str
    status: str = Field(description="solved, unsolvable, incomplete, budget, invalid-plan")
    solved: bool = Field(description="true only when veriplan's validator accepted the plan")
    plan: list[str] | None
    seconds: float
    expanded: int | None
    verdict: Literal["valid", "invalid", "unknown"] | None
    feedback: str | None


class TaskError(_Doc):
    file: Literal["domain", "problem"]
    message: str
    line: int | None
    col: int | None
    requirement: str | None


class CheckTaskDoc(_Doc):
    schema_id: Literal["veriplan.check_task/1"] = "veriplan.check_task/1"
    ok: bool = Field(description="both files read and the task built")
    supported: bool = Field(description="false when the task needs what veriplan does not "
                                        "model (durative actions, numeric fluents, ...)")
    errors: list[TaskError]
    domain: str | None
    problem: str | None
    requirements: list[str]
    supported_requirements: list[str]
    counts: dict[str, int] = Field(description="types, predicates, actions, objects, init, "
                                               "goal atoms")


class RunMethodDoc(_Doc):
    schema_id: Literal["veriplan.run_method/1"] = "veriplan.run_method/1"
    method: str
    verified: bool = Field(description="true only when the plan was verified on the scope")
    scope: str
    verified_on: str
    plan: list[str]
    solved_by: str | None
    attempts: int
    llm_calls: int
    tokens: int
    seconds: float
    backend: str
    model: str
    failure: str | None
    last_diagnosis: str


class ToolDoc(_Doc):
    name: str
    description: str | None
    input_schema: dict[str, object]
    output_schema: dict[str, object] | None


class ServerDoc(_Doc):
    """What ``veriplan mcp --describe`` prints."""

    schema_id: Literal["veriplan.mcp_server/1"] = "veriplan.mcp_server/1"
    server: str
    version: str
    limits: dict[str, object] = Field(description="roots, max_bytes, time_limit, max_items, "
                                                  "max_results, backend, model, "
                                                  "method_time_limit, lenient")
    tools: list[ToolDoc]


DOCUMENTS: dict[str, type[BaseModel]] = {
    "validate_plan": ValidatePlanDoc, "validate_batch": ValidateBatchDoc,
    "simulate": SimulateDoc, "applicable_actions": ApplicableActionsDoc,
    "solve_classical": SolveClassicalDoc, "check_task": CheckTaskDoc,
    "run_method": RunMethodDoc, "mcp_server": ServerDoc,
}


def json_schema(document: str) -> dict[str, object]:
    """The versioned JSON schema of a document (what docs/schemas holds)."""
    schema = DOCUMENTS[document].model_json_schema()
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": f"https://veriplan.dev/schemas/{document}.v{SCHEMA_VERSION}.json",
            **schema}
