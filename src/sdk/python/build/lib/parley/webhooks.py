"""Verifying and reading Parley's webhook deliveries.

Each delivery is signed twice over the exact body bytes:

* the brand header, `X-Parley-Signature: sha256=<hex HMAC-SHA256(body)>` keyed with the secret string as
  given (another brand renames it, e.g. `X-Acme-Signature`); a comma-separated list during a rotation;
* Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of
  "id.timestamp.body">` keyed with the base64-decoded part after `whsec_`; space-separated during a rotation.
"""
from __future__ import annotations

import base64
import binascii
import datetime
import hashlib
import hmac
import json
import re
import time
from typing import Any, Dict, List, Mapping, Optional, Union, cast

from ._errors import ParleyError
from ._types import (
    AGENT_EVENT_TYPES,
    WORKSPACE_EVENT_TYPES,
    AgentEvent,
    WebhookEvent,
    WorkspaceEvent,
)

__all__ = [
    "AGENT_EVENT_TYPES",
    "WORKSPACE_EVENT_TYPES",
    "AgentEvent",
    "WebhookEvent",
    "WebhookVerificationError",
    "WorkspaceEvent",
    "is_agent_event",
    "is_workspace_event",
    "parse_event",
    "verify",
]

_BRAND_HEADER = re.compile(r"^x-[a-z0-9-]+-signature$")
_SCHEMES = ("any", "standard", "brand")


class WebhookVerificationError(ParleyError):
    """The delivery is not signed with this secret, is too old, or is not a Parley event."""


def verify(
    payload: Union[bytes, str],
    headers: Mapping[str, str],
    secret: str,
    *,
    scheme: str = "any",
    tolerance: float = 300,
    now: Optional[Union[float, datetime.datetime]] = None,
) -> WebhookEvent:
    """Checks a delivery's signature(s) and returns the parsed event.

    `payload` is the raw body exactly as received. `scheme`: "standard", "brand", or "any" (every scheme
    the delivery carries must verify, and it must carry at least one). `tolerance` bounds the age of
    `webhook-timestamp` in seconds (Standard Webhooks); `now` overrides the current time.
    """
    if scheme not in _SCHEMES:
        raise ValueError(f"scheme must be one of {', '.join(_SCHEMES)}")
    body = payload.encode("utf-8") if isinstance(payload, str) else bytes(payload)
    lowered = {str(name).lower(): value for name, value in headers.items()}
    standard_present = any(name in lowered for name in ("webhook-id", "webhook-timestamp", "webhook-signature"))
    brand_headers = [name for name in lowered if _BRAND_HEADER.match(name)]
    if scheme in ("any", "standard") and (standard_present or scheme == "standard"):
        _verify_standard(body, lowered, secret, tolerance, now)
    if scheme in ("any", "brand") and (brand_headers or scheme == "brand"):
        _verify_brand(body, lowered, brand_headers, secret)
    if scheme == "any" and not standard_present and not brand_headers:
        raise WebhookVerificationError("no webhook signature headers")
    return parse_event(body)


def _verify_standard(body: bytes, headers: Dict[str, str], secret: str, tolerance: float, now: Optional[Union[float, datetime.datetime]]) -> None:
    event_id = headers.get("webhook-id")
    stamp = headers.get("webhook-timestamp")
    signatures = headers.get("webhook-signature")
    if not event_id or not stamp or not signatures:
        raise WebhookVerificationError("missing webhook-id, webhook-timestamp or webhook-signature")
    try:
        sent = int(stamp.strip())
    except ValueError:
        raise WebhookVerificationError("webhook-timestamp is not a number") from None
    current = now.timestamp() if isinstance(now, datetime.datetime) else (time.time() if now is None else float(now))
    if abs(current - sent) > tolerance:
        raise WebhookVerificationError("webhook-timestamp is outside the tolerance")
    key_text = secret[len("whsec_") :] if secret.startswith("whsec_") else secret
    try:
        key = base64.b64decode(key_text, validate=True)
    except (binascii.Error, ValueError):
        raise WebhookVerificationError("the secret is not a whsec_ base64 secret") from None
    signed = event_id.encode("utf-8") + b"." + stamp.strip().encode("utf-8") + b"." + body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest())
    for candidate in signatures.split():
        version, _, value = candidate.partition(",")
        if version == "v1" and hmac.compare_digest(value.encode("utf-8"), expected):
            return
    raise WebhookVerificationError("no webhook-signature matches")


def _verify_brand(body: bytes, headers: Dict[str, str], names: List[str], secret: str) -> None:
    if not names:
        raise WebhookVerificationError("missing the X-<Brand>-Signature header")
    expected = ("sha256=" + hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()).encode("ascii")
    for name in names:
        for candidate in headers[name].split(","):
            if hmac.compare_digest(candidate.strip().encode("utf-8"), expected):
                return
    raise WebhookVerificationError(f"no {', '.join(names)} value matches")


def parse_event(payload: Union[bytes, str, Mapping[str, Any]]) -> WebhookEvent:
    """The event of a delivery body (unverified): an agent event has `type`, a workspace event `event`."""
    if isinstance(payload, Mapping):
        event: Any = dict(payload)
    else:
        try:
            event = json.loads(payload)
        except ValueError:
            raise WebhookVerificationError("the body is not JSON") from None
    if not isinstance(event, dict) or not (isinstance(event.get("type"), str) or isinstance(event.get("event"), str)):
        raise WebhookVerificationError("the body is not a Parley event (no `type` or `event`)")
    return cast(WebhookEvent, event)


def is_agent_event(event: Mapping[str, Any]) -> bool:
    """Call lifecycle (sent to an agent's webhook_url): `{type, event_id, call_id, agent_id, timestamp, data}`."""
    return isinstance(event.get("type"), str) and "event_id" in event


def is_workspace_event(event: Mapping[str, Any]) -> bool:
    """Outcomes (sent to workspace endpoints): `{event, id, ts, data}`."""
    return isinstance(event.get("event"), str)
