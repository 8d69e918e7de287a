"""Real deliveries to a local receiver, verified with parley.webhooks; and the verifier against hand-made signatures."""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Dict, List, NamedTuple, Optional

from support import URL, new_key, server_now

from parley import Parley, WebhookVerificationError
from parley.webhooks import is_agent_event, is_workspace_event, parse_event, verify


class Delivery(NamedTuple):
    path: str
    headers: Dict[str, str]
    body: bytes


class Receiver:
    """An HTTP server on 127.0.0.1 that keeps every POST it gets and answers 200."""

    def __init__(self) -> None:
        self.deliveries: List[Delivery] = []
        self.changed = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with receiver.changed:
                    receiver.deliveries.append(Delivery(self.path, dict(self.headers.items()), body))
                    receiver.changed.notify_all()
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def wait_for(self, path: str, matches: Callable[[dict], bool], timeout: float = 60) -> Delivery:
        def found() -> Optional[Delivery]:
            for delivery in self.deliveries:
                if delivery.path == path and matches(json.loads(delivery.body)):
                    return delivery
            return None

        with self.changed:
            if not self.changed.wait_for(found, timeout):
                raise AssertionError(f"no matching delivery to {path} within {timeout} s; got {[(d.path, d.body[:80]) for d in self.deliveries]}")
            return found()  # type: ignore[return-value]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class DeliveriesTest(unittest.TestCase):
    receiver: Receiver
    client: Parley
    endpoint_secret: str
    endpoint_id: str
    agent_secret: str
    agent_id: str

    @classmethod
    def setUpClass(cls) -> None:
        cls.receiver = Receiver()
        _, key = new_key()
        cls.client = Parley(URL, api_key=key)
        endpoint = cls.client.webhooks.create({"url": f"{cls.receiver.url}/workspace", "events": ["call.completed", "call.failed"]})
        cls.endpoint_id, cls.endpoint_secret = endpoint["id"], endpoint["secret"]
        agent = cls.client.agents.create({"name": "Hooked", "first_message": "Hello!", "webhook_url": f"{cls.receiver.url}/agent"})
        cls.agent_id, cls.agent_secret = agent["id"], agent["webhook_secret"]

    @classmethod
    def tearDownClass(cls) -> None:
        cls.receiver.close()

    def assert_signed(self, delivery: Delivery, secret: str) -> dict:
        """Both schemes verify with the right secret; a changed byte, another secret or an old timestamp fail."""
        now = server_now()  # the server's clock signed the timestamp (the clock tests move it forward)
        for scheme in ("standard", "brand", "any"):
            event = verify(delivery.body, delivery.headers, secret, scheme=scheme, now=now)
            self.assertEqual(event, json.loads(delivery.body))
        self.assertTrue(any(name.lower().endswith("-signature") and name.lower().startswith("x-") for name in delivery.headers))
        tampered = bytearray(delivery.body)
        tampered[len(tampered) // 2] ^= 0x01
        for scheme in ("standard", "brand", "any"):
            with self.assertRaises(WebhookVerificationError):
                verify(bytes(tampered), delivery.headers, secret, scheme=scheme, now=now)
            with self.assertRaises(WebhookVerificationError):
                verify(delivery.body, delivery.headers, "whsec_" + base64.b64encode(b"another secret, 32 bytes long!!!").decode(), scheme=scheme, now=now)
        sent = int({k.lower(): v for k, v in delivery.headers.items()}["webhook-timestamp"])
        with self.assertRaises(WebhookVerificationError):
            verify(delivery.body, delivery.headers, secret, scheme="standard", now=sent + 301)
        with self.assertRaises(WebhookVerificationError):
            verify(delivery.body, delivery.headers, secret, scheme="any", now=sent - 301)
        verify(delivery.body, delivery.headers, secret, scheme="standard", now=sent + 301, tolerance=400)
        return parse_event(delivery.body)  # type: ignore[return-value]

    def test_workspace_endpoint_test_event(self) -> None:
        result = self.client.webhooks.test(self.endpoint_id)
        delivery = self.receiver.wait_for("/workspace", lambda e: e.get("event") == "webhook.test" and e.get("id") == result["event_id"])
        event = self.assert_signed(delivery, self.endpoint_secret)
        self.assertTrue(is_workspace_event(event))
        self.assertFalse(is_agent_event(event))
        self.assertEqual(event["data"]["destination_id"], self.endpoint_id)

    def test_agent_test_event(self) -> None:
        result = self.client.agents.test_webhook(self.agent_id)
        delivery = self.receiver.wait_for("/agent", lambda e: e.get("type") == "webhook.test" and e.get("event_id") == result["event_id"])
        event = self.assert_signed(delivery, self.agent_secret)
        self.assertTrue(is_agent_event(event))
        self.assertFalse(is_workspace_event(event))
        self.assertEqual(event["agent_id"], self.agent_id)

    def test_call_lifecycle_and_outcome_events(self) -> None:
        number = self.client.phone_numbers.buy({"area_code": "415"})
        self.client.phone_numbers.assign(number["id"], {"agent_id": self.agent_id})
        call = self.client.calls.outbound(
            {"agent_id": self.agent_id, "to": "+12125550150", "simulation": {"lines": ["Thanks, goodbye"], "recognition": "simulated"}}
        )
        self.client.calls.wait(call["id"])
        for kind in ("call.started", "call.ended"):
            delivery = self.receiver.wait_for("/agent", lambda e, kind=kind: e.get("type") == kind and e.get("call_id") == call["id"])
            event = self.assert_signed(delivery, self.agent_secret)
            self.assertTrue(is_agent_event(event))
        delivery = self.receiver.wait_for("/workspace", lambda e: e.get("event") == "call.completed" and e["data"]["call_id"] == call["id"])
        event = self.assert_signed(delivery, self.endpoint_secret)
        self.assertTrue(is_workspace_event(event))
        self.assertEqual(event["data"]["status"], "completed")


class VerifyTest(unittest.TestCase):
    """The verifier alone, against signatures made here the way the server documents them."""

    SECRET = "whsec_" + base64.b64encode(bytes(range(32))).decode()
    OLD_SECRET = "whsec_" + base64.b64encode(bytes(range(32, 64))).decode()
    BODY = b'{"event":"webhook.test","id":"evt_1","ts":"2026-01-01T00:00:00.000Z","data":{"message":"hi","destination_id":"whe_1"}}'

    def sign(self, secrets: List[str], brand: str = "X-Parley-Signature", stamp: int = 1_700_000_000, body: bytes = BODY) -> Dict[str, str]:
        brand_value = ",".join("sha256=" + hmac.new(s.encode(), body, hashlib.sha256).hexdigest() for s in secrets)
        signed = b"evt_1." + str(stamp).encode() + b"." + body
        standard = " ".join("v1," + base64.b64encode(hmac.new(base64.b64decode(s[6:]), signed, hashlib.sha256).digest()).decode() for s in secrets)
        return {brand: brand_value, "webhook-id": "evt_1", "webhook-timestamp": str(stamp), "webhook-signature": standard}

    def test_rotation_lists_and_renamed_brand(self) -> None:
        headers = self.sign([self.SECRET, self.OLD_SECRET], brand="X-Acme-Signature")
        for secret in (self.SECRET, self.OLD_SECRET):
            for scheme in ("standard", "brand", "any"):
                event = verify(self.BODY, headers, secret, scheme=scheme, now=1_700_000_010)
                self.assertEqual(event["event"], "webhook.test")  # type: ignore[typeddict-item]

    def test_headers_are_case_insensitive_and_str_payload_works(self) -> None:
        headers = {k.upper(): v for k, v in self.sign([self.SECRET]).items()}
        verify(self.BODY.decode(), headers, self.SECRET, now=1_700_000_000)

    def test_any_needs_a_scheme_and_every_present_one(self) -> None:
        headers = self.sign([self.SECRET])
        with self.assertRaises(WebhookVerificationError):
            verify(self.BODY, {}, self.SECRET)
        only_brand = {"X-Parley-Signature": headers["X-Parley-Signature"]}
        verify(self.BODY, only_brand, self.SECRET, scheme="any")
        with self.assertRaises(WebhookVerificationError):
            verify(self.BODY, only_brand, self.SECRET, scheme="standard")
        broken_brand = dict(headers, **{"X-Parley-Signature": "sha256=" + "0" * 64})
        verify(self.BODY, broken_brand, self.SECRET, scheme="standard", now=1_700_000_000)
        with self.assertRaises(WebhookVerificationError):
            verify(self.BODY, broken_brand, self.SECRET, scheme="any", now=1_700_000_000)

    def test_parse_event_tells_the_sets_apart(self) -> None:
        agent = parse_event(b'{"type":"call.started","event_id":"evt_2","call_id":"call_1","agent_id":"agent_1","timestamp":"x","data":{}}')
        workspace = parse_event(self.BODY)
        self.assertTrue(is_agent_event(agent) and not is_workspace_event(agent))
        self.assertTrue(is_workspace_event(workspace) and not is_agent_event(workspace))
        with self.assertRaises(WebhookVerificationError):
            parse_event(b"[1, 2]")
        with self.assertRaises(WebhookVerificationError):
            parse_event(b"not json")


if __name__ == "__main__":
    unittest.main()
