"""A token store shared by clients and processes: one session, whose renewal none of them spends twice."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest
from typing import List, Optional

from support import PASSWORD, URL, advance, needs_clock, new_user
from test_refresh import ACCESS_TOKEN_LIFETIME_MS, CountingTransport

from parley import AuthenticationError, FileTokenStore, Parley, TokenPair

# Another process of the same user: signs in through the store alone, calls /v1/auth/me, and says how
# many refreshes it sent and whether it got an answer.
OTHER_PROCESS = textwrap.dedent(
    """
    import json, sys, time
    from parley import FileTokenStore, Parley
    from parley._transport import Transport

    class Counting(Transport):
        refreshes = 0
        def send(self, method, url, headers, body, timeout):
            if url.endswith("/v1/auth/refresh"):
                Counting.refreshes += 1
            return super().send(method, url, headers, body, timeout)

    client = Parley(sys.argv[1], token_store=FileTokenStore(sys.argv[2]))
    client._transport = Counting()
    time.sleep(max(0.0, float(sys.argv[3]) - time.time()))  # the processes call at one moment
    try:
        outcome = client.auth.me()["email"]
    except Exception as error:
        outcome = f"{type(error).__name__}: {error}"
    print(json.dumps({"outcome": outcome, "refreshes": Counting.refreshes}))
    """
)


def other_processes(path: str, count: int) -> List[dict]:
    """Runs `count` other processes on the store at once; what each reported."""
    at = str(time.time() + 1.5)  # past every child's start-up
    children = [
        subprocess.Popen([sys.executable, "-c", OTHER_PROCESS, URL, path, at], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(count)
    ]
    reports = []
    for child in children:
        out, err = child.communicate(timeout=60)
        if child.returncode != 0:
            raise AssertionError(f"the other process failed ({child.returncode}): {err}")
        reports.append(json.loads(out))
    return reports


class MemoryStore:
    """The smallest store: any object with load and save."""

    def __init__(self) -> None:
        self.pair: Optional[TokenPair] = None

    def load(self) -> Optional[TokenPair]:
        return self.pair

    def save(self, pair: Optional[TokenPair]) -> None:
        self.pair = pair


@needs_clock
class TokenStoreTest(unittest.TestCase):
    def test_two_processes_on_one_file_store_renew_once_and_stay_signed_in(self) -> None:
        email, _ = new_user()
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "tokens.json")
            here = Parley(URL, email=email, password=PASSWORD, token_store=FileTokenStore(path))
            transport = CountingTransport()
            here._transport = transport  # type: ignore[assignment]
            self.assertEqual(here.auth.me()["email"], email)
            signed_in = here.tokens
            self.assertEqual(FileTokenStore(path).load(), signed_in)
            self.assertEqual(os.stat(path).st_mode & 0o777, 0o600)

            # The access token expires; the other process meets it first and renews the session.
            advance(ACCESS_TOKEN_LIFETIME_MS + 60_000)
            [report] = other_processes(path, 1)
            self.assertEqual(report, {"outcome": email, "refreshes": 1})
            renewed = FileTokenStore(path).load()
            self.assertNotEqual(renewed, signed_in)

            # This one still holds the old pair: it acts with the renewed one rather than spend the old
            # refresh token again (the server would end the session for everyone).
            self.assertEqual(here.auth.me()["email"], email)
            self.assertEqual(transport.count("/v1/auth/refresh"), 0)
            self.assertEqual(here.tokens, renewed)

            # Three processes meet the next expiry together: one renewal among them (they take turns on
            # the store's lock), and every one of them, and this one, still signed in.
            advance(ACCESS_TOKEN_LIFETIME_MS + 60_000)
            reports = other_processes(path, 3)
            self.assertEqual([r["outcome"] for r in reports], [email] * 3, reports)
            self.assertEqual(sum(r["refreshes"] for r in reports), 1, reports)
            self.assertEqual(here.auth.me()["email"], email)
            self.assertEqual(transport.count("/v1/auth/refresh"), 0)

            # Signing out empties the store; another process then has no session to act with.
            here.auth.logout()
            self.assertIsNone(FileTokenStore(path).load())
            [report] = other_processes(path, 1)
            self.assertTrue(report["outcome"].startswith("AuthenticationError"), report)

    def test_two_clients_of_one_store_in_a_process(self) -> None:
        email, _ = new_user()
        store = MemoryStore()
        first = Parley(URL, token_store=store)
        first.auth.login({"email": email, "password": PASSWORD})
        self.assertEqual(store.pair, first.tokens)
        second = Parley(URL, token_store=store)  # signed in by the store alone
        counting = CountingTransport()
        second._transport = counting  # type: ignore[assignment]
        advance(ACCESS_TOKEN_LIFETIME_MS + 60_000)
        self.assertEqual(first.auth.me()["email"], email)  # renews, and stores the new pair
        self.assertEqual(second.auth.me()["email"], email)  # takes it instead of refreshing again
        self.assertEqual(counting.count("/v1/auth/refresh"), 0)
        second.auth.logout()
        self.assertIsNone(store.pair)
        with self.assertRaises(AuthenticationError):
            first.auth.me()

    def test_an_api_key_client_ignores_the_store(self) -> None:
        store = MemoryStore()
        store.pair = TokenPair("not a token", "nor this")
        client = Parley(URL, api_key="sk_test_unused", token_store=store)
        self.assertEqual(client.tokens, TokenPair(None, None))


if __name__ == "__main__":
    unittest.main()
