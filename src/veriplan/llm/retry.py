"""Retries with exponential backoff and full jitter, honouring Retry-After.

Only errors marked ``retryable`` (rate limits, 5xx, timeouts, connections
dropped mid-request) are retried; authentication, bad requests and an address
where nothing answers (:class:`~veriplan.errors.EndpointUnreachableError`:
refused, unresolvable, unreachable) fail at once.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from veriplan.errors import BackendError, RateLimitError

T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 6
    base_delay: float = 1.0
    max_delay: float = 60.0

    def delay(self, attempt: int, error: BackendError, rng: random.Random) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1-based)."""
        backoff = rng.uniform(0, min(self.max_delay, self.base_delay * 2 ** (attempt - 1)))
        if isinstance(error, RateLimitError) and error.retry_after is not None:
            return max(backoff, min(error.retry_after, self.max_delay * 5))
        return backoff


def with_retries(fn: Callable[[], T], policy: RetryPolicy, *,
                 sleep: Callable[[float], None] = time.sleep,
                 rng: random.Random | None = None) -> tuple[T, int]:
    """``(fn(), attempts)``, retrying retryable backend errors."""
    rng = rng or random.Random()
    attempt = 1
    while True:
        try:
            return fn(), attempt
        except BackendError as exc:
            if not exc.retryable or attempt >= policy.max_attempts:
                exc.attempts = attempt  # type: ignore[attr-defined]
                raise
            sleep(policy.delay(attempt, exc, rng))
            attempt += 1
