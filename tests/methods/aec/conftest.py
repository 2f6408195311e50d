"""The kitchen registered as an environment (three variants) with its AEC
model, and a private cache directory for calibration and tau files."""

from __future__ import annotations

import pytest

from tests.methods.aec import kitchen
from veriplan.envs import ENVS
from veriplan.methods.aec.domain import ENV_MODELS

VARIANTS = {
    "fakekitchen": kitchen.model(),
    # heating needs a closed microwave, the model knows it, and one rule is unsound
    "fakekitchen-strict": kitchen.model(strict=True, extra_rules=(kitchen.MicrowavesAreClosed(),)),
    # heating needs a closed microwave, and the model does not know it
    "fakekitchen-loose": kitchen.model(),
}


@pytest.fixture(autouse=True)
def kitchens(tmp_path, monkeypatch):
    monkeypatch.setenv("VERIPLAN_CACHE", str(tmp_path / "cache"))
    for name, model in VARIANTS.items():
        ENVS.register(name, kitchen.FakeKitchen)
        ENV_MODELS.register(name, model)
    yield
    for name in VARIANTS:
        ENVS.unregister(name)
        ENV_MODELS.unregister(name)
