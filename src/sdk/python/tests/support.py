"""What the suites share: the server under test, its clock control, fresh users and keys."""
from __future__ import annotations

import json
import os
import time
import unittest
import urllib.request
import uuid
from typing import Any, Callable, Optional, Tuple, TypeVar

from parley import Parley

URL = os.environ.get("PARLEY_URL", "http://localhost:8080")
#: Only a server run from source has it: POST {control}/advance {"ms": n} moves the server's clock forward.
CONTROL_URL = os.environ.get("PARLEY_TEST_CONTROL_URL")
FLAVOR = os.environ.get("PARLEY_TEST_FLAVOR", "unknown")
# From source the clock tests must run, not skip quietly.
assert FLAVOR != "source" or CONTROL_URL, "PARLEY_TEST_FLAVOR=source needs PARLEY_TEST_CONTROL_URL"
PASSWORD = "a long password for tests"

T = TypeVar("T")

needs_clock = unittest.skipUnless(CONTROL_URL, "needs PARLEY_TEST_CONTROL_URL (a server run from source)")


def advance(ms: float) -> float:
    """Moves the server's clock forward; returns the server's time afterwards (epoch seconds)."""
    assert CONTROL_URL, "no control URL"
    # Whole milliseconds: the server stores its clock in integer columns (list cursors refuse fractions).
    request = urllib.request.Request(f"{CONTROL_URL}/advance", data=json.dumps({"ms": int(ms)}).encode(), headers={"content-type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())["now"] / 1000


def server_now() -> float:
    """The server's clock (epoch seconds): moved forward by the clock tests, else the real time."""
    return advance(0) if CONTROL_URL else time.time()


def new_user() -> Tuple[str, dict]:
    """Registers a fresh user with the library itself; returns the e-mail and the registration answer."""
    email = f"py-{uuid.uuid4().hex[:12]}@example.com"
    answer = Parley(URL).auth.register({"email": email, "password": PASSWORD, "name": "Python SDK test"})
    return email, dict(answer)


def new_key(scope: str = "admin") -> Tuple[str, str]:
    """A fresh user and an API key of theirs (made by an e-mail/password client); returns (email, key)."""
    email, _ = new_user()
    user = Parley(URL, email=email, password=PASSWORD)
    created = user.api_keys.create({"name": f"python {scope}", "scope": scope})  # type: ignore[typeddict-item]
    return email, created["key"]


def wait_until(check: Callable[[], Optional[T]], timeout: float = 60, interval: float = 0.25, what: str = "condition") -> T:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)


def describe(value: Any) -> str:
    return json.dumps(value, indent=1, default=str)[:2000]
