"""Text similarity for methods that compare natural-language strings.

:mod:`veriplan.text.embeddings` holds the sentence encoder (all-MiniLM-L6-v2 run
in NumPy, no torch) and a lexical fallback that needs nothing installed.
"""

from __future__ import annotations

from veriplan.text.embeddings import Encoder, available, lexical_distance

__all__ = ["Encoder", "available", "lexical_distance"]
