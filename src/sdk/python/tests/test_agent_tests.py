"""`run_agent_tests`: a test run of a flow agent started, polled with progress, and returned with its verdicts."""
from __future__ import annotations

import unittest

from support import URL, describe, new_key

from parley import Parley

# Asks the caller's name, thanks them by it and hangs up: no language model, so the verdicts are certain.
NAME_FLOW = {
    "start": "name",
    "nodes": {
        "name": {"type": "ask", "text": "May I have your name?", "slot": {"name": "name", "type": "string"}, "next": "bye"},
        "bye": {"type": "end", "text": "Thanks {{name}}, goodbye."},
    },
}


def case(name: str, contains: str) -> dict:
    return {"name": name, "caller": {"type": "script", "turns": [{"say": "My name is Ada"}]}, "expectations": [{"type": "agent_says", "contains": contains}], "timeout_seconds": 30}


class RunAgentTestsTest(unittest.TestCase):
    def test_waits_for_the_run_and_returns_every_verdict(self) -> None:
        _, key = new_key("write")
        client = Parley(URL, api_key=key)
        agent = client.agents.create({"name": "Name taker", "first_message": "Hello, this is Acme.", "brain": {"type": "flow", "flow": NAME_FLOW}})  # type: ignore[typeddict-item]
        seen: list = []
        run = client.run_agent_tests(agent["id"], cases=[case("thanks Ada", "thanks Ada"), case("speaks French", "bonjour")], on_progress=seen.append, interval=0.2)
        self.assertEqual(run["status"], "failed", describe(run))
        verdicts = {result["name"]: result for result in run["results"]}
        self.assertEqual(verdicts["thanks Ada"]["status"], "passed", describe(verdicts))
        self.assertEqual(verdicts["speaks French"]["status"], "failed", describe(verdicts))
        self.assertEqual(verdicts["speaks French"]["failures"][0]["expectation"]["contains"], "bonjour")
        # Progress saw the run as it went, the last time finished.
        self.assertIs(seen[-1], run)
        self.assertEqual(run["progress"]["completed"], 2)
