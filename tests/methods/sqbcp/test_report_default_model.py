"""A controlled model named without its rates (``--model`` left out: "sqbcp")
is reported at the rates it ran with (issue 46, item 7: the report's plot read
"p=?" as a number and `veriplan report` ended in an internal error)."""

from __future__ import annotations

from veriplan.methods.sqbcp.controlled import Settings
from veriplan.methods.sqbcp.report import _setting


def test_a_model_without_rates_is_labelled_with_the_defaults():
    defaults = Settings.parse("sqbcp")
    assert _setting("sqbcp") == f"p={defaults.p_hidden}, acc={defaults.acc}"
    assert _setting("sqbcp:acc=0.9") == f"p={defaults.p_hidden}, acc=0.9"
    assert _setting("sqbcp:p_hidden=0.2,acc=0.5,seed=0,omit=pre") == "p=0.2, acc=0.5, omit=pre"
