"""Hand-written additions to the generated resources."""
from __future__ import annotations

import time
import warnings
from typing import TYPE_CHECKING, Any, Callable, List, Optional

from . import _resources as generated
from ._errors import WaitTimeoutError

if TYPE_CHECKING:  # only for annotations: a renamed schema must not break the import
    from ._client import Parley
    from ._types import AgentTestCase, Call, TestRunWithResults

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


#: A test run in one of these states has not finished yet.
UNFINISHED_RUN_STATUSES = frozenset({"queued", "running"})


def run_agent_tests(
    client: Parley,
    agent_id: str,
    *,
    test_ids: Optional[List[str]] = None,
    cases: Optional[List[AgentTestCase]] = None,
    version: Optional[int] = None,
    concurrency: Optional[int] = None,
    on_progress: Optional[Callable[[TestRunWithResults], None]] = None,
    max_wait: float = 3600.0,
    interval: float = 1.0,
    request_timeout: Optional[float] = None,
) -> TestRunWithResults:
    """Starts a test run of the agent's cases (stored, or `cases` inline) and polls until it has finished.

    Returns the run with every case's `results`; `on_progress(run)` sees it after each poll. Waiting longer
    than `max_wait` (WaitTimeoutError) or being interrupted (Ctrl-C) cancels the run before raising.
    """
    body: Any = {key: value for key, value in {"test_ids": test_ids, "cases": cases, "version": version, "concurrency": concurrency}.items() if value is not None}
    run_id = client.test_runs.create(agent_id, body, timeout=request_timeout)["id"]
    deadline = time.monotonic() + max_wait
    try:
        while True:
            run = client.test_runs.get(agent_id, run_id, timeout=request_timeout)
            if on_progress is not None:
                on_progress(run)
            if run["status"] not in UNFINISHED_RUN_STATUSES:
                return run
            if time.monotonic() + interval > deadline:
                raise WaitTimeoutError(f"test run {run_id} is still {run['status']} after waiting {max_wait:g} s in all; canceled")
            time.sleep(interval)
    except BaseException:
        # Nobody waits for the run any more: its calls stop rather than run on unseen.
        try:
            client.test_runs.cancel(agent_id, run_id, timeout=request_timeout)
        except Exception:
            pass
        raise
