"""The client's behaviour on answers a live server rarely gives on demand: a scripted transport instead of the network."""
from __future__ import annotations

import asyncio
import json
import os
import tempfile
import unittest
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

import parley
from parley import (
    APIConnectionError,
    AsyncParley,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    InternalServerError,
    NotFoundError,
    Parley,
    PayloadTooLargeError,
    PermissionDeniedError,
    RateLimitError,
    UnprocessableEntityError,
)
from parley._transport import Response

Step = Union[Response, Exception]


def answer(status: int, body: Any = None, headers: Optional[Dict[str, str]] = None, content_type: str = "application/json") -> Response:
    raw = body if isinstance(body, bytes) else (b"" if body is None else json.dumps(body).encode())
    kind = "application/problem+json" if status >= 400 and content_type == "application/json" else content_type
    return Response(status, {"Content-Type": kind, **(headers or {})}, raw)


def problem(status: int, code: str, **extra: Any) -> Response:
    return answer(status, {"type": "about:blank", "title": code, "status": status, "detail": f"{code} happened", "code": code, "request_id": "req_1", **extra})


class ScriptedTransport:
    """Answers from a script, in order, and records what was sent."""

    def __init__(self, *steps: Step) -> None:
        self.steps = list(steps)
        self.sent: List[Tuple[str, str, Dict[str, str], Optional[bytes]]] = []

    def send(self, method: str, url: str, headers: Mapping[str, str], body: Optional[bytes], timeout: float) -> Response:
        self.sent.append((method, url, dict(headers), body))
        step = self.steps.pop(0)
        if isinstance(step, Exception):
            raise step
        return step


def client_with(*steps: Step, **options: Any) -> Tuple[Parley, ScriptedTransport, List[float]]:
    client = Parley("http://parley.test", **{"api_key": "sk_test", **options})
    transport = ScriptedTransport(*steps)
    client._transport = transport  # type: ignore[assignment]
    slept: List[float] = []
    client._sleep = slept.append  # type: ignore[method-assign]
    return client, transport, slept


class RetryTest(unittest.TestCase):
    def test_post_gets_one_idempotency_key_reused_on_retries(self) -> None:
        client, transport, slept = client_with(problem(503, "service_unavailable"), APIConnectionError("reset"), answer(201, {"id": "agent_1"}))
        agent = client.agents.create({"name": "A", "first_message": "Hi"})
        self.assertEqual(agent["id"], "agent_1")
        keys = {headers["Idempotency-Key"] for _, _, headers, _ in transport.sent}
        self.assertEqual(len(transport.sent), 3)
        self.assertEqual(len(keys), 1)
        self.assertEqual(len(slept), 2)

    def test_callers_key_is_sent(self) -> None:
        client, transport, _ = client_with(answer(201, {"id": "agent_1"}))
        client.agents.create({"name": "A"}, idempotency_key="mine")
        self.assertEqual(transport.sent[0][2]["Idempotency-Key"], "mine")

    def test_auth_posts_have_no_key_and_are_not_repeated(self) -> None:
        client, transport, _ = client_with(APIConnectionError("reset"), api_key=None)
        with self.assertRaises(APIConnectionError):
            client.auth.login({"email": "a@example.com", "password": "secret"})
        self.assertEqual(len(transport.sent), 1)
        self.assertNotIn("Idempotency-Key", transport.sent[0][2])

        client, transport, _ = client_with(problem(502, "bad_gateway"), api_key=None)
        with self.assertRaises(InternalServerError):
            client.auth.login({"email": "a@example.com", "password": "secret"})
        self.assertEqual(len(transport.sent), 1)

    def test_get_retries_connection_errors_then_gives_up(self) -> None:
        client, transport, slept = client_with(APIConnectionError("a"), APIConnectionError("b"), APIConnectionError("c"))
        with self.assertRaises(APIConnectionError):
            client.agents.get("agent_1")
        self.assertEqual(len(transport.sent), 3)  # the first try and max_retries=2
        self.assertTrue(all(0 < s <= 2 for s in slept))

    def test_429_waits_retry_after_capped_by_max_retry_delay(self) -> None:
        client, _, slept = client_with(problem(429, "rate_limited"), answer(200, {"id": "x"}), max_retry_delay=5)
        client._transport.steps[0].headers["retry-after"] = "30"  # type: ignore[attr-defined]
        client.agents.get("agent_1")
        self.assertEqual(slept, [5])

    def test_429_raised_with_retry_after_when_retries_run_out(self) -> None:
        limited = problem(429, "rate_limited")
        limited.headers["retry-after"] = "2"
        client, transport, _ = client_with(limited, max_retries=0)
        with self.assertRaises(RateLimitError) as raised:
            client.agents.list()
        self.assertEqual(raised.exception.retry_after, 2)
        self.assertEqual(len(transport.sent), 1)


class ErrorTest(unittest.TestCase):
    def test_status_codes_map_to_classes(self) -> None:
        cases = {400: BadRequestError, 401: AuthenticationError, 403: PermissionDeniedError, 404: NotFoundError, 409: ConflictError, 413: PayloadTooLargeError, 422: UnprocessableEntityError, 500: InternalServerError}
        for status, cls in cases.items():
            client, _, _ = client_with(problem(status, "some_code", errors=[{"field": "name", "message": "is required"}]), max_retries=0)
            with self.assertRaises(cls) as raised:
                client.agents.get("agent_1")
            error = raised.exception
            self.assertIsInstance(error, parley.APIError)
            self.assertEqual((error.status, error.code, error.request_id, error.title), (status, "some_code", "req_1", "some_code"))
            self.assertEqual(error.errors, [{"field": "name", "message": "is required"}])
            self.assertIn("name: is required", str(error))

    def test_non_json_error_body(self) -> None:
        client, _, _ = client_with(answer(502, b"<html>bad gateway</html>", content_type="text/html"), max_retries=0)
        with self.assertRaises(InternalServerError) as raised:
            client.health.get()
        self.assertEqual(raised.exception.body, "<html>bad gateway</html>")
        self.assertIsNone(raised.exception.code)


class RequestShapeTest(unittest.TestCase):
    def test_path_query_and_headers(self) -> None:
        client, transport, _ = client_with(answer(200, {"data": [], "has_more": False, "next_cursor": None}), workspace_id="ws_2")
        client.calls.list(status="completed", from_="2026-01-01T00:00:00Z", agent_id=None)
        method, url, headers, body = transport.sent[0]
        self.assertEqual(method, "GET")
        self.assertEqual(url, "http://parley.test/v1/calls?status=completed&from=2026-01-01T00%3A00%3A00Z")
        self.assertEqual(headers["Authorization"], "Bearer sk_test")
        self.assertEqual(headers["X-Workspace-Id"], "ws_2")
        self.assertIsNone(body)

    def test_path_parameters_are_escaped(self) -> None:
        client, transport, _ = client_with(answer(200, {"id": "a/b"}))
        client.agents.get("a/b c")
        self.assertEqual(transport.sent[0][1], "http://parley.test/v1/agents/a%2Fb%20c")

    def test_upload_sends_a_file_part_from_a_path_bytes_or_file(self) -> None:
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "contacts.csv")
            with open(path, "wb") as handle:
                handle.write(b"phone\n+14155550123\n")
            for source in (path, b"phone\n+14155550123\n", "file"):
                client, transport, _ = client_with(answer(201, {"accepted": 1}))
                if source == "file":
                    with open(path, "rb") as handle:
                        client.campaigns.upload("cmp_1", handle, mode="replace")
                else:
                    client.campaigns.upload("cmp_1", source, mode="replace")
                method, url, headers, body = transport.sent[0]
                self.assertEqual(url, "http://parley.test/v1/campaigns/cmp_1/upload?mode=replace")
                self.assertTrue(headers["Content-Type"].startswith("multipart/form-data; boundary="))
                assert body is not None
                self.assertIn(b'name="file"; filename="', body)
                self.assertIn(b"+14155550123", body)
                if source != b"phone\n+14155550123\n":
                    self.assertIn(b'filename="contacts.csv"', body)

    def test_multipart_body_is_the_same_on_a_retry(self) -> None:
        client, transport, _ = client_with(problem(503, "service_unavailable"), answer(202, {"id": "src_1"}))
        client.knowledge_bases.add_source("kb_1", file=b"hello", name="hello.txt")
        self.assertEqual(transport.sent[0][3], transport.sent[1][3])
        self.assertIn(b'name="name"\r\n\r\nhello.txt', transport.sent[0][3] or b"")

    def test_answers_decode_by_kind(self) -> None:
        client, _, _ = client_with(
            answer(200, b"phone,status\n", content_type="text/csv; charset=utf-8"),
            answer(200, b"RIFF....", content_type="audio/wav"),
            answer(204),
        )
        self.assertEqual(client.campaigns.results("cmp_1"), "phone,status\n")
        self.assertEqual(client.calls.recording("call_1"), b"RIFF....")
        self.assertIsNone(client.agents.delete("agent_1"))

    def test_session_url(self) -> None:
        self.assertEqual(Parley("https://voice.example.com/").realtime.session_url("tok en"), "wss://voice.example.com/v1/realtime/session?token=tok+en")
        self.assertEqual(Parley("http://127.0.0.1:8080").realtime.session_url("t", rate="16000"), "ws://127.0.0.1:8080/v1/realtime/session?token=t&rate=16000")


class SessionTest(unittest.TestCase):
    def test_logs_in_once_then_uses_the_token(self) -> None:
        tokens = answer(200, {"access_token": "at1", "refresh_token": "rt1", "expires_in": 900, "token_type": "Bearer", "workspace_id": "ws_1"})
        client, transport, _ = client_with(tokens, answer(200, {"id": "ws_1"}), answer(200, {"id": "ws_1"}), api_key=None, email="a@example.com", password="pw")
        client.workspaces.current()
        client.workspaces.current()
        self.assertEqual([url.rsplit("/v1", 1)[1] for _, url, _, _ in transport.sent], ["/auth/login", "/workspaces/current", "/workspaces/current"])
        self.assertEqual(transport.sent[1][2]["Authorization"], "Bearer at1")
        self.assertEqual(client.tokens, ("at1", "rt1"))

    def test_expired_token_is_refreshed_and_the_call_repeated(self) -> None:
        pair = {"access_token": "at2", "refresh_token": "rt2", "expires_in": 900, "token_type": "Bearer", "workspace_id": None}
        client, transport, _ = client_with(problem(401, "token_expired"), answer(200, pair), answer(200, {"id": "ws_1"}), api_key=None, access_token="at1", refresh_token="rt1")
        self.assertEqual(client.workspaces.current()["id"], "ws_1")
        self.assertEqual(json.loads(transport.sent[1][3] or b"{}"), {"refresh_token": "rt1"})
        self.assertEqual(transport.sent[2][2]["Authorization"], "Bearer at2")
        self.assertEqual(client.tokens.refresh_token, "rt2")

    def test_a_refresh_token_alone_is_traded_first(self) -> None:
        pair = {"access_token": "at2", "refresh_token": "rt2", "expires_in": 900, "token_type": "Bearer", "workspace_id": None}
        client, transport, _ = client_with(answer(200, pair), answer(200, {"id": "ws_1"}), api_key=None, refresh_token="rt1")
        client.workspaces.current()
        self.assertTrue(transport.sent[0][1].endswith("/v1/auth/refresh"))
        self.assertEqual(transport.sent[1][2]["Authorization"], "Bearer at2")

    def test_other_401s_are_not_refreshed(self) -> None:
        client, transport, _ = client_with(problem(401, "unauthorized"), api_key=None, access_token="at1", refresh_token="rt1")
        with self.assertRaises(AuthenticationError):
            client.workspaces.current()
        self.assertEqual(len(transport.sent), 1)

    def test_login_answer_signs_the_client_in(self) -> None:
        pair = {"access_token": "at9", "refresh_token": "rt9", "expires_in": 900, "token_type": "Bearer", "workspace_id": "ws_1"}
        client, transport, _ = client_with(answer(200, pair), answer(200, {"id": "ws_1"}), api_key=None)
        client.auth.login({"email": "a@example.com", "password": "pw"})
        client.workspaces.current()
        self.assertEqual(transport.sent[1][2]["Authorization"], "Bearer at9")


class PaginationTest(unittest.TestCase):
    def test_iterates_across_pages_with_the_cursor(self) -> None:
        client, transport, _ = client_with(
            answer(200, {"data": [{"id": 1}, {"id": 2}], "has_more": True, "next_cursor": "c2"}),
            answer(200, {"data": [{"id": 3}], "has_more": False, "next_cursor": None}),
        )
        page = client.agents.list(limit=2)
        self.assertEqual(([a["id"] for a in page.data], page.has_more, page.next_cursor), ([1, 2], True, "c2"))
        self.assertEqual([a["id"] for a in page], [1, 2, 3])
        self.assertEqual(transport.sent[1][1], "http://parley.test/v1/agents?limit=2&cursor=c2")

    def test_async_client_pages(self) -> None:
        client = AsyncParley("http://parley.test", api_key="sk_test")
        client.sync._transport = ScriptedTransport(  # type: ignore[assignment]
            answer(200, {"data": [{"id": 1}], "has_more": True, "next_cursor": "c2"}),
            answer(200, {"data": [{"id": 2}], "has_more": False, "next_cursor": None}),
        )

        async def run() -> List[int]:
            page = await client.agents.list(limit=1)
            return [agent["id"] async for agent in page]

        self.assertEqual(asyncio.run(run()), [1, 2])


if __name__ == "__main__":
    unittest.main()
