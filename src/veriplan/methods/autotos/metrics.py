"""What AutoToS's report section computes, by name (the fields of report.json's
``autotos`` tables; see :func:`veriplan.methods.autotos.figures.aggregate`)."""

from __future__ import annotations

from enum import StrEnum


class Metric(StrEnum):
    MEAN_CALLS = "mean_calls"  # calls to the model per domain run (Table 1)
    MEAN_ACCURACY = "mean_accuracy"  # accuracy at each point of the loop (Figure 2)
    AT_100 = "at_100"  # runs at 100% accuracy at a point (Figure 2)
    END_MEAN_ACCURACY = "end_mean_accuracy"  # accuracy of the final components
    END_AT_100 = "end_at_100"
    ERRORS = "errors"  # errors by category, per model (Figure 4)
