"""Typed errors from the official SDKs' exceptions (the ``openai`` and
``anthropic`` packages share their exception names)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType

from veriplan.errors import (
    AuthenticationError,
    BackendError,
    BadRequestError,
    RateLimitError,
    TransientBackendError,
)


def retry_after_seconds(headers: object) -> float | None:
    try:
        value = headers.get("retry-after")  # type: ignore[attr-defined]
        return float(value) if value is not None else None
    except (AttributeError, TypeError, ValueError):
        return None


@contextmanager
def translated_errors(sdk: ModuleType, where: str, key_hint: str) -> Iterator[None]:
    """Re-raise the SDK's exceptions as veriplan's, without secrets in messages."""
    bad_request = tuple(getattr(sdk, n) for n in
                        ("BadRequestError", "NotFoundError", "UnprocessableEntityError")
                        if hasattr(sdk, n))
    try:
        yield
    except sdk.AuthenticationError:
        raise AuthenticationError(f"{where} rejected the API key: check {key_hint}") from None
    except sdk.RateLimitError as exc:
        raise RateLimitError(f"rate limited by {where}",
                             retry_after_seconds(exc.response.headers)) from None
    except (sdk.APITimeoutError, sdk.APIConnectionError, sdk.InternalServerError) as exc:
        raise TransientBackendError(f"{type(exc).__name__} from {where}") from None
    except bad_request as exc:
        raise BadRequestError(f"{where} rejected the request: {exc}") from None
    except sdk.APIStatusError as exc:
        cls = TransientBackendError if exc.status_code >= 500 else BackendError
        raise cls(f"HTTP {exc.status_code} from {where}") from None
