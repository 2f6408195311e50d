"""Typed errors from the official SDKs' exceptions (the ``openai`` and
``anthropic`` packages share their exception names).

A connection that cannot be made (refused, a host name that does not resolve,
a network or host that cannot be reached) is
:class:`~veriplan.errors.EndpointUnreachableError`, never retried; a timeout,
a connection dropped mid-request, a 5xx and a 429 stay transient."""

from __future__ import annotations

import errno
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType

from veriplan.errors import (
    AuthenticationError,
    BackendError,
    BadRequestError,
    EndpointUnreachableError,
    RateLimitError,
    TransientBackendError,
)


def retry_after_seconds(headers: object) -> float | None:
    try:
        value = headers.get("retry-after")  # type: ignore[attr-defined]
        return float(value) if value is not None else None
    except (AttributeError, TypeError, ValueError):
        return None


_UNREACHABLE_ERRNOS = frozenset({errno.ENETUNREACH, errno.EHOSTUNREACH})


def _causes(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        yield cur
        cur = cur.__cause__ or cur.__context__


def unreachable_reason(exc: BaseException, url: str, fix: str = "--base-url") -> str | None:
    """Why nothing can answer at ``url``, with the fix, when ``exc`` (or an
    exception it was raised from) is a connection that could not be made;
    None for anything else (a timeout, a dropped connection, an HTTP error)."""
    for cause in _causes(exc):
        if isinstance(cause, TimeoutError) or "Timeout" in type(cause).__name__:
            return None  # a slow server is there: worth waiting for
        if isinstance(cause, ConnectionRefusedError):
            return f"nothing listens at {url}: start the server or fix {fix}"
        if isinstance(cause, socket.gaierror):
            return (f"the host name of {url} does not resolve ({cause.strerror}): "
                    f"fix the host in {fix} or check the network's DNS")
        if isinstance(cause, OSError) and cause.errno in _UNREACHABLE_ERRNOS:
            return (f"{url} cannot be reached ({cause.strerror}): check the network "
                    f"or fix {fix}")
    return None


@contextmanager
def translated_errors(sdk: ModuleType, where: str, key_hint: str,
                      url: str | None = None) -> Iterator[None]:
    """Re-raise the SDK's exceptions as veriplan's, without secrets in messages.
    ``url`` is the address the client connects to (``where`` when not given)."""
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
    except sdk.APIConnectionError as exc:  # APITimeoutError included
        address = url or where
        reason = unreachable_reason(exc, address)
        if reason is not None:
            raise EndpointUnreachableError(reason, address) from None
        raise TransientBackendError(f"{type(exc).__name__} from {where}") from None
    except sdk.InternalServerError as exc:
        raise TransientBackendError(f"{type(exc).__name__} from {where}") from None
    except bad_request as exc:
        raise BadRequestError(f"{where} rejected the request: {exc}") from None
    except sdk.APIStatusError as exc:
        cls = TransientBackendError if exc.status_code >= 500 else BackendError
        raise cls(f"HTTP {exc.status_code} from {where}") from None
