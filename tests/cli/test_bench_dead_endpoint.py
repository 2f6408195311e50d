"""``bench`` against a ``--base-url`` where nothing listens (a real closed port on
127.0.0.1): the first error's reason and the progress on standard error, and a
stop after the first units that all fail the same way, with how to resume."""

from __future__ import annotations

import socket

import pytest

from veriplan.bench.runner import STOP_AFTER_SAME_ERRORS
from veriplan.bench.store import RunStore
from veriplan.cli import main


@pytest.fixture
def dead_url() -> str:
    """An OpenAI-compatible address on 127.0.0.1 where nothing listens."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


@pytest.mark.parametrize(("method", "dataset"), [
    ("backprompt", "blocksworld_3"), ("sqbcp", "sqbcp_pddl_hidden"),
    ("drip", "blocksworld_3")])
def test_bench_on_a_dead_endpoint_stops_with_the_reason(method, dataset, dead_url, data_dir,
                                                        tmp_path, capsys):
    out = tmp_path / "runs"
    code = main(["bench", method, "--dataset", dataset, "--data-dir", str(data_dir),
                 "--backend", "openai", "--model", "m", "--base-url", dead_url,
                 "--limit", "5", "--no-cache", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2
    reason = f"nothing listens at {dead_url}: start the server or fix --base-url"
    assert "bench: 5 unit(s) to run, 0 already in the store" in err
    assert f"(backend:EndpointUnreachableError): {reason}" in err.split("\n")[1]
    assert "bench: 1/5 units done" in err
    assert (f"stopped after {STOP_AFTER_SAME_ERRORS} units failing the same way "
            f"(backend:EndpointUnreachableError): {reason}") in err
    assert "--rerun-errors to resume (2 unit(s) not run yet)" in err
    records = list(RunStore(out).records())
    assert len(records) == STOP_AFTER_SAME_ERRORS
    assert {r.error_category for r in records} == {"backend:EndpointUnreachableError"}


def test_stop_after_zero_runs_every_unit(dead_url, data_dir, tmp_path, capsys):
    out = tmp_path / "runs"
    code = main(["bench", "backprompt", "--dataset", "blocksworld_3", "--data-dir",
                 str(data_dir), "--backend", "openai", "--model", "m", "--base-url", dead_url,
                 "--limit", "4", "--no-cache", "--out", str(out), "--stop-after", "0"])
    captured = capsys.readouterr()
    assert code == 1 and "stopped after" not in captured.err
    assert "errors 4" in captured.out and len(list(RunStore(out).records())) == 4
    # the error is told once, the progress after the first unit and the last
    assert captured.err.count("first error") == 1
    assert "bench: 1/4 units done" in captured.err and "bench: 4/4 units done" in captured.err


def test_a_bad_stop_after_is_refused(dead_url, data_dir, tmp_path, capsys):
    code = main(["bench", "backprompt", "--dataset", "blocksworld_3", "--data-dir",
                 str(data_dir), "--backend", "openai", "--model", "m", "--base-url", dead_url,
                 "--out", str(tmp_path / "runs"), "--stop-after", "-1"])
    assert code == 2
    assert "--stop-after (stop_after) must be 0 (never stop early) to 100, not -1" in \
        capsys.readouterr().err
