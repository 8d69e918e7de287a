"""Hand-written additions to the generated resources."""
from __future__ import annotations

import time
import warnings
from typing import TYPE_CHECKING, Optional

from . import _resources as generated
from ._errors import WaitTimeoutError

if TYPE_CHECKING:  # only for annotations: a renamed schema must not break the import
    from ._types import Call

#: A call in one of these states has not ended yet.
LIVE_CALL_STATUSES = frozenset({"queued", "ringing", "in_progress"})


class CallsResource(generated.CallsResource):
    def wait(
        self,
        call_id: str,
        max_wait: Optional[float] = None,
        interval: float = 0.5,
        *,
        request_timeout: Optional[float] = None,
        timeout: Optional[float] = None,
    ) -> Call:
        """Polls the call until it has ended (left queued, ringing and in_progress) and returns it.

        `max_wait` is the wait in all, across every poll (default 120 s): then WaitTimeoutError.
        `request_timeout` is each poll's own (the client's `timeout` by default). `timeout` is the
        old, deprecated name of `max_wait` (every other method's `timeout=` is per request).
        """
        if timeout is not None:
            warnings.warn("calls.wait(timeout=) is the total wait: pass max_wait= instead", DeprecationWarning, stacklevel=2)
            if max_wait is None:
                max_wait = timeout
        total = 120.0 if max_wait is None else max_wait
        deadline = time.monotonic() + total
        while True:
            call = self.get(call_id, timeout=request_timeout)
            if call["status"] not in LIVE_CALL_STATUSES:
                return call
            if time.monotonic() + interval > deadline:
                raise WaitTimeoutError(f"call {call_id} is still {call['status']} after waiting {total:g} s in all")
            time.sleep(interval)
