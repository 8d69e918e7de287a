"""Hand-written additions to the generated resources."""
from __future__ import annotations

import time
from typing import TYPE_CHECKING

from . import _resources as generated
from ._errors import WaitTimeoutError

if TYPE_CHECKING:  # only for annotations: a renamed schema must not break the import
    from ._types import Call

#: A call in one of these states has not ended yet.
LIVE_CALL_STATUSES = frozenset({"queued", "ringing", "in_progress"})


class CallsResource(generated.CallsResource):
    def wait(self, call_id: str, timeout: float = 120, interval: float = 0.5) -> Call:
        """Polls the call until it has ended (left queued, ringing and in_progress) and returns it.

        Raises WaitTimeoutError after `timeout` seconds.
        """
        deadline = time.monotonic() + timeout
        while True:
            call = self.get(call_id)
            if call["status"] not in LIVE_CALL_STATUSES:
                return call
            if time.monotonic() >= deadline:
                raise WaitTimeoutError(f"call {call_id} is still {call['status']} after {timeout} s")
            time.sleep(interval)
