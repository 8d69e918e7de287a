"""429: raised with retry_after when retries are off, waited out and retried by default."""
from __future__ import annotations

import time
import unittest

from support import URL, advance, needs_clock, new_key

from parley import Parley, RateLimitError

WINDOW_MS = 60_000
#: Left of the key's window when the test asks again: long enough to see a wait, short enough to wait it out.
LEFT_MS = 2_500


@needs_clock
class RateLimitTest(unittest.TestCase):
    def test_429_raised_then_waited_out(self) -> None:
        _, key = new_key()
        impatient = Parley(URL, api_key=key, max_retries=0)
        started = time.monotonic()
        impatient.workspaces.current()  # the key's first request opens its one-minute window
        # Spend the window's allowance at whatever pace, then jump to just before the window closes.
        for _ in range(1000):
            try:
                impatient.workspaces.current()
            except RateLimitError:
                break
        else:
            self.fail("no 429 after 1000 requests")
        advance(WINDOW_MS - LEFT_MS - (time.monotonic() - started) * 1000)

        with self.assertRaises(RateLimitError) as limited:
            impatient.workspaces.current()
        error = limited.exception
        self.assertEqual((error.status, error.code), (429, "rate_limited"))
        self.assertIsNotNone(error.retry_after)
        self.assertGreater(error.retry_after, 0)
        self.assertLessEqual(error.retry_after, 3)

        patient = Parley(URL, api_key=key)  # max_retries=2: sleeps Retry-After, then asks again
        began = time.monotonic()
        workspace = patient.workspaces.current()
        waited = time.monotonic() - began
        self.assertTrue(workspace["id"])
        self.assertGreaterEqual(waited, 0.5)


if __name__ == "__main__":
    unittest.main()
