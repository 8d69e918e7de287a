"""Python client of the Parley API (standard library only).

    from parley import Parley
    client = Parley("http://localhost:8080", api_key="sk_parley_live_...")
    agent = client.agents.create({"name": "Front desk", "first_message": "Hello!"})
"""
from __future__ import annotations

from . import webhooks
from ._async import AsyncParley
from ._auth import FileTokenStore, TokenPair, TokenStore
from ._client import Parley
from ._errors import (
    APIConnectionError,
    APIError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    InternalServerError,
    NotFoundError,
    ParleyError,
    PayloadTooLargeError,
    PermissionDeniedError,
    RateLimitError,
    UnprocessableEntityError,
    WaitTimeoutError,
)
from ._pagination import Page
from ._version import __version__
from .webhooks import WebhookVerificationError

__all__ = [
    "APIConnectionError",
    "APIError",
    "APITimeoutError",
    "AsyncParley",
    "AuthenticationError",
    "BadRequestError",
    "ConflictError",
    "FileTokenStore",
    "InternalServerError",
    "NotFoundError",
    "Page",
    "Parley",
    "ParleyError",
    "PayloadTooLargeError",
    "PermissionDeniedError",
    "RateLimitError",
    "TokenPair",
    "TokenStore",
    "UnprocessableEntityError",
    "WaitTimeoutError",
    "WebhookVerificationError",
    "__version__",
    "webhooks",
]
