"""Shared fixtures of the inspect tests: a mock model that never counts tokens
itself, and one run store (made with the scripted backend through the CLI)
exported once as inspect eval logs."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai", reason="the [inspect] extra is not installed")

from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402

from veriplan.bench.store import RunStore, UnitRecord  # noqa: E402
from veriplan.cli import main  # noqa: E402

SCRIPT = "tests.inspect.scripts:second_try"


def output(text: str) -> ModelOutput:
    """A mock answer with its usage set: mockllm would otherwise count tokens
    with tiktoken, which downloads its encoding on first use."""
    out = ModelOutput.from_content("mockllm/model", text)
    out.usage = ModelUsage(input_tokens=100, output_tokens=len(text.split()),
                           total_tokens=100 + len(text.split()))
    return out


def mock_model(answers: Iterable[str] | Callable[[str], str]):
    """inspect's mockllm answering with ``answers`` in turn, or with
    ``answers(last user message)``."""
    if callable(answers):
        fn = answers
        return get_model("mockllm/model",
                         custom_outputs=lambda messages, *_: output(fn(messages[-1].text)))
    return get_model("mockllm/model", custom_outputs=[output(a) for a in answers])


@dataclass
class Exported:
    runs: Path
    logs: Path
    paths: list[Path]
    records: list[UnitRecord]


@pytest.fixture(scope="session")
def exported(tmp_path_factory, data_dir) -> Exported:
    """Three arms in one store: back-prompting solves each instance on its second
    attempt, direct generation fails each at step 1 (two instances, seeds 0 and
    1), and a model whose every call fails ends its one unit in an error; then
    ``veriplan export-inspect``."""
    root = tmp_path_factory.mktemp("inspect-export")
    runs, logs = root / "runs", root / "logs"
    common = ["--data-dir", str(data_dir), "--backend", "scripted", "--script", SCRIPT,
              "--config", "prompt=pddl", "--out", str(runs), "--no-cache"]
    for method in ("backprompt", "direct"):
        assert main(["bench", method, "--dataset", "blocksworld_3", "--limit", "2",
                     "--seeds", "0", "1", *common]) == 0
    main(["bench", "direct", "--dataset", "mystery_blocksworld_3", "--limit", "1",
          "--model", "broken", *common])
    assert main(["export-inspect", str(runs), "--out", str(logs)]) == 0
    store = RunStore(runs, create=False)
    records = list(store.records())
    store.close()
    return Exported(runs, logs, sorted(logs.glob("*.eval")), records)
