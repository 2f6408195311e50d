"""docs/claims.md is `veriplan paper --all --markdown` over the committed stores:
regenerated here and compared, so a store or a paper that changes without the
document fails (regenerate: ``veriplan paper --all --markdown > docs/claims.md``
from the repository's root). Reading the stores never writes them."""

from __future__ import annotations

import hashlib
import os

import pytest

from tests.conftest import REPO
from veriplan.cli import main


def _tracked_stores() -> list:
    """The stores git holds (a store being written by a run beside the tests is
    not one of them)."""
    import subprocess

    try:
        out = subprocess.run(["git", "ls-files", "results/*/runs.sqlite"], cwd=REPO,
                             capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return []
    return [REPO / line for line in out.split()]


def test_claims_md_is_generated_from_the_committed_stores(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    stores = _tracked_stores()
    before = {s: hashlib.sha256(s.read_bytes()).hexdigest() for s in stores}
    monkeypatch.chdir(REPO)
    assert main(["paper", "--all", "--markdown"]) == 0
    out = capsys.readouterr().out
    doc = (REPO / "docs" / "claims.md").read_text()
    assert out == doc, ("docs/claims.md is not what the committed stores give: run "
                        "`veriplan paper --all --markdown > docs/claims.md` from the "
                        f"repository's root ({os.path.relpath(REPO)})")
    assert {s: hashlib.sha256(s.read_bytes()).hexdigest() for s in stores} == before
    for name in ("sqbcp", "autotos", "aec", "closed-loop", "drip"):
        assert f"\n## {name}: " in out
