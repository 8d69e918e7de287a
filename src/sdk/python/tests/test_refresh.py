"""Expired access tokens: one refresh however many threads meet the expiry, and one shared failure when it cannot work."""
from __future__ import annotations

import threading
import unittest
from typing import Any, Callable, List, Optional

from support import PASSWORD, URL, advance, needs_clock, new_user

from parley import AuthenticationError, Parley
from parley._transport import Response, Transport

ACCESS_TOKEN_LIFETIME_MS = 15 * 60 * 1000
THREADS = 8


class CountingTransport(Transport):
    """The real transport, counting requests per path (and slowing refreshes so the threads overlap them)."""

    def __init__(self) -> None:
        super().__init__()
        self.lock = threading.Lock()
        self.paths: List[str] = []

    def send(self, method: str, url: str, headers: Any, body: Optional[bytes], timeout: float) -> Response:
        path = url.split("://", 1)[1].split("/", 1)[1].split("?")[0]
        with self.lock:
            self.paths.append("/" + path)
        if path == "v1/auth/refresh":
            threading.Event().wait(0.2)
        return super().send(method, url, headers, body, timeout)

    def count(self, path: str) -> int:
        with self.lock:
            return self.paths.count(path)


def together(call: Callable[[], Any], threads: int = THREADS) -> List[Any]:
    """Runs `call` on several threads released at the same moment; each result or exception, in thread order."""
    barrier = threading.Barrier(threads)
    results: List[Any] = [None] * threads

    def run(i: int) -> None:
        barrier.wait()
        try:
            results[i] = call()
        except BaseException as error:  # noqa: BLE001 - the test inspects it
            results[i] = error

    workers = [threading.Thread(target=run, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    return results


@needs_clock
class RefreshTest(unittest.TestCase):
    def test_one_refresh_for_many_threads_then_one_shared_failure(self) -> None:
        email, _ = new_user()
        client = Parley(URL, email=email, password=PASSWORD)
        transport = CountingTransport()
        client._transport = transport

        me = client.auth.me()
        self.assertEqual(me["email"], email)
        self.assertEqual(transport.count("/v1/auth/login"), 1)
        first = client.tokens

        advance(ACCESS_TOKEN_LIFETIME_MS + 60_000)
        results = together(client.auth.me)
        failures = [r for r in results if isinstance(r, BaseException)]
        self.assertEqual(failures, [])
        self.assertTrue(all(r["email"] == email for r in results))
        self.assertEqual(transport.count("/v1/auth/refresh"), 1)
        self.assertNotEqual(client.tokens, first)

        # A POST after expiry: refreshed once, then repeated with the same Idempotency-Key, which the 401 never claimed.
        advance(ACCESS_TOKEN_LIFETIME_MS + 60_000)
        created = together(lambda: client.agents.create({"name": "After refresh", "first_message": "Hi"}), threads=4)
        self.assertEqual([r for r in created if isinstance(r, BaseException)], [])
        self.assertEqual(len({agent["id"] for agent in created}), 4)
        self.assertEqual(transport.count("/v1/auth/refresh"), 2)

        # Signed out: the refresh token is dead, so every caller gets the one refresh's failure.
        client.auth.logout()
        advance(ACCESS_TOKEN_LIFETIME_MS + 60_000)
        results = together(client.auth.me)
        self.assertTrue(all(isinstance(r, AuthenticationError) for r in results), results)
        self.assertEqual(transport.count("/v1/auth/refresh"), 3)
        self.assertEqual(len({id(r) for r in results}), 1, "all callers share the refresh's error")
        # Later calls do not try again with the same dead pair.
        with self.assertRaises(AuthenticationError):
            client.auth.me()
        self.assertEqual(transport.count("/v1/auth/refresh"), 3)


if __name__ == "__main__":
    unittest.main()
