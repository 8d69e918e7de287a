"""Exceptions: one class per kind of failure, so callers catch what they can handle."""
from __future__ import annotations

import email.utils
import json
import time
from typing import Any, Dict, List, Mapping, Optional, Type


class ParleyError(Exception):
    """Base of every error the library raises."""


class APIConnectionError(ParleyError):
    """The request never got an HTTP answer (refused, reset, DNS, TLS)."""


class APITimeoutError(APIConnectionError):
    """No answer within the time-out."""


class WaitTimeoutError(ParleyError):
    """A `wait` helper gave up before the object reached a final state."""


class APIError(ParleyError):
    """An HTTP error answer, with the fields of its RFC 9457 problem document."""

    status: int
    code: Optional[str]
    title: Optional[str]
    detail: Optional[str]
    type: Optional[str]
    errors: List[Dict[str, str]]
    request_id: Optional[str]
    body: Any
    headers: Dict[str, str]

    def __init__(self, status: int, body: Any, headers: Mapping[str, str]) -> None:
        self.status = status
        self.body = body
        self.headers = {k.lower(): v for k, v in headers.items()}
        problem: Mapping[str, Any] = body if isinstance(body, dict) else {}
        self.code = problem.get("code")
        self.title = problem.get("title")
        self.detail = problem.get("detail")
        self.type = problem.get("type")
        self.errors = list(problem.get("errors") or [])
        self.request_id = problem.get("request_id") or self.headers.get("x-request-id")
        super().__init__(self._message())

    def _message(self) -> str:
        text = self.detail or self.title or (self.body[:200] if isinstance(self.body, str) and self.body else "HTTP error")
        # The detail usually names the fields already; add those it does not.
        missing = [f"{e.get('field')}: {e.get('message')}" for e in self.errors if f"{e.get('field')}: {e.get('message')}" not in text]
        extra = "; " + "; ".join(missing) if missing else ""
        where = f" (request {self.request_id})" if self.request_id else ""
        return f"{self.status}{' ' + self.code if self.code else ''}: {text}{extra}{where}"


class BadRequestError(APIError):
    """400"""


class AuthenticationError(APIError):
    """401: missing, invalid or expired credential."""


class PermissionDeniedError(APIError):
    """403: the credential lacks the scope or role."""


class NotFoundError(APIError):
    """404"""


class ConflictError(APIError):
    """409: see `code` (invalid_state, name_taken, idempotency_key_reused, ...)."""


class PayloadTooLargeError(APIError):
    """413"""


class UnprocessableEntityError(APIError):
    """422: `errors` names each field."""


class RateLimitError(APIError):
    """429: `retry_after` is the seconds the server asked to wait."""

    @property
    def retry_after(self) -> Optional[float]:
        return parse_retry_after(self.headers.get("retry-after"))


class InternalServerError(APIError):
    """5xx"""


_BY_STATUS: Dict[int, Type[APIError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    413: PayloadTooLargeError,
    422: UnprocessableEntityError,
    429: RateLimitError,
}


def error_for(status: int, raw: bytes, headers: Mapping[str, str]) -> APIError:
    """The typed error for an HTTP error answer (problem+json when the server sent one)."""
    text = raw.decode("utf-8", "replace")
    body: Any = text
    try:
        body = json.loads(text) if text else None
    except ValueError:
        pass
    cls = _BY_STATUS.get(status) or (InternalServerError if status >= 500 else APIError)
    return cls(status, body, headers)


def parse_retry_after(value: Optional[str]) -> Optional[float]:
    """Seconds from a `Retry-After` header: delay-seconds or an HTTP date."""
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
