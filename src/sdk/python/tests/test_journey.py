"""The README's journey through the library: user, key, agent, knowledge, number, call, campaign, lists, errors."""
from __future__ import annotations

import csv
import io
import os
import tempfile
import time
import unittest

from support import PASSWORD, URL, describe, new_user, wait_until

from parley import NotFoundError, Page, Parley, UnprocessableEntityError, WaitTimeoutError


class JourneyTest(unittest.TestCase):
    client: Parley
    agent: dict

    @classmethod
    def setUpClass(cls) -> None:
        email, registration = new_user()
        assert registration["access_token"] and registration["user"]["email"] == email
        # An e-mail/password client logs in on its first call and makes the admin key the rest uses.
        user = Parley(URL, email=email, password=PASSWORD)
        key = user.api_keys.create({"name": "journey", "scope": "admin"})
        assert user.tokens.access_token and user.tokens.refresh_token
        cls.client = Parley(URL, api_key=key["key"])
        cls.agent = dict(cls.client.agents.create({"name": "Front desk", "first_message": "Hello, you have reached Acme. How can I help?"}))
        number = cls.client.phone_numbers.buy({"area_code": "415"})
        cls.client.phone_numbers.assign(number["id"], {"agent_id": cls.agent["id"]})

    def test_knowledge_base_indexes_and_answers(self) -> None:
        kb = self.client.knowledge_bases.create({"name": "Opening hours"})
        text = "Our shop is open from nine in the morning until six in the evening, Monday to Saturday."
        source = self.client.knowledge_bases.add_source(kb["id"], {"type": "text", "name": "hours.txt", "text": text})
        ready = wait_until(
            lambda: (lambda s: s if s["status"] in ("ready", "failed") else None)(self.client.knowledge_bases.get_source(kb["id"], source["id"])),
            what="the source to be indexed",
        )
        self.assertEqual(ready["status"], "ready", describe(ready))
        answer = self.client.knowledge_bases.query(kb["id"], {"query": "When is the shop open?", "top_k": 3})
        self.assertTrue(answer["data"], describe(answer))
        best = answer["data"][0]
        self.assertIsInstance(best["score"], float)
        self.assertGreater(best["score"], 0)
        self.assertIn("nine in the morning", best["text"])
        # The read-only GET form answers the same.
        searched = self.client.knowledge_bases.search(kb["id"], query="When is the shop open?", top_k=1)
        self.assertEqual(searched["data"][0]["chunk_id"], best["chunk_id"])

    def test_knowledge_file_upload(self) -> None:
        kb = self.client.knowledge_bases.create({"name": "Returns"})
        source = self.client.knowledge_bases.add_source(kb["id"], file=b"Returns are accepted within thirty days.", name="returns.txt")
        self.assertEqual(source["type"], "file")
        self.assertEqual(source["name"], "returns.txt")

    def test_outbound_call_transcript_and_recordings(self) -> None:
        call = self.client.calls.outbound(
            {
                "agent_id": self.agent["id"],
                "to": "+12125550150",
                # The goodbye ends the call at once (one line alone ends it by the silence time-out, ~45 s).
                "simulation": {"lines": ["What are your opening hours?", "Thanks, goodbye"], "recognition": "simulated"},
            }
        )
        # max_wait is the wait in all, across polls: a call that lasts seconds outlives 0.3 s of it.
        started = time.monotonic()
        with self.assertRaisesRegex(WaitTimeoutError, r"still (queued|ringing|in_progress) after waiting 0\.3 s in all"):
            self.client.calls.wait(call["id"], max_wait=0.3, interval=0.1)
        self.assertLess(time.monotonic() - started, 5)
        ended = self.client.calls.wait(call["id"], max_wait=120)
        self.assertEqual(ended["status"], "completed", describe(ended))
        transcript = self.client.calls.transcript(call["id"])
        roles = {turn["role"] for turn in transcript["turns"]}
        self.assertEqual(roles, {"agent", "caller"}, describe(transcript))
        self.assertTrue(any("opening hours" in turn["text"].lower() for turn in transcript["turns"] if turn["role"] == "caller"))
        # ?format=text answers plain text: the client returns it as str.
        text = self.client.calls.transcript(call["id"], format="text")
        self.assertIsInstance(text, str)
        self.assertIn("opening hours", str(text).lower())
        wav = self.client.calls.recording(call["id"])
        self.assertIsInstance(wav, bytes)
        self.assertEqual(wav[:4], b"RIFF")
        mp3 = self.client.calls.recording_mp3(call["id"])
        self.assertTrue(mp3[:3] == b"ID3" or (mp3[0] == 0xFF and mp3[1] & 0xE0 == 0xE0), mp3[:8])
        events = self.client.calls.events(call["id"])
        self.assertTrue(events["data"])
        # The old name of max_wait still works, with a DeprecationWarning saying what to use.
        with self.assertWarnsRegex(DeprecationWarning, "max_wait"):
            self.assertEqual(self.client.calls.wait(call["id"], timeout=5)["status"], "completed")

    def test_campaign_from_csv_file(self) -> None:
        campaign = self.client.campaigns.create(
            {
                "name": "Renewals",
                "agent_id": self.agent["id"],
                "concurrency": 3,
                "calls_per_minute": 600,
                "window": {"days": ["mon", "tue", "wed", "thu", "fri", "sat", "sun"], "start": "00:00", "end": "24:00", "timezone": "UTC"},
                "retry": {"on": [], "max_attempts": 1, "delay_minutes": 1},
            }
        )
        numbers = ["+12125550101", "+13125550101", "+16465550101"]  # ending in 01: busy at once
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "contacts.csv")
            with open(path, "w", newline="", encoding="utf-8") as handle:
                writer = csv.writer(handle)
                writer.writerow(["phone", "First Name"])
                for i, number in enumerate(numbers):
                    writer.writerow([number, f"Contact {i}"])
            upload = self.client.campaigns.upload(campaign["id"], path)
        self.assertEqual((upload["accepted"], upload["rejected"]), (len(numbers), 0), describe(upload))
        self.client.campaigns.start(campaign["id"])
        done = wait_until(
            lambda: (lambda c: c if c["status"] in ("completed", "canceled", "paused") else None)(self.client.campaigns.get(campaign["id"])),
            timeout=120,
            interval=0.5,
            what="the campaign to complete",
        )
        self.assertEqual(done["status"], "completed", describe(done))
        results = self.client.campaigns.results(campaign["id"])
        self.assertIsInstance(results, str)
        rows = list(csv.DictReader(io.StringIO(results)))
        self.assertEqual(sorted(row["phone"] for row in rows), sorted(numbers))
        self.assertTrue(all(row["status"] == "busy" for row in rows), results)
        self.assertEqual({row["First Name"] for row in rows}, {f"Contact {i}" for i in range(len(numbers))})
        contacts = list(self.client.campaigns.list_contacts(campaign["id"], limit=1))
        self.assertEqual(len(contacts), len(numbers))

    def test_pagination_walks_every_page(self) -> None:
        names = [f"Paged tool {i}" for i in range(3)]
        for name in names:
            self.client.tools.create(
                {"name": name.replace(" ", "_").lower(), "description": "A tool to page through", "url": "https://example.com/hook"}
            )
        page = self.client.tools.list(limit=1)
        self.assertIsInstance(page, Page)
        self.assertEqual(len(page.data), 1)
        self.assertTrue(page.has_more)
        self.assertIsNotNone(page.next_cursor)
        listed = [tool["name"] for tool in page]
        self.assertEqual(sorted(listed), sorted(name.replace(" ", "_").lower() for name in names))
        self.assertEqual(len(set(tool["id"] for tool in self.client.tools.list(limit=1))), len(names))

    def test_errors_are_typed(self) -> None:
        with self.assertRaises(NotFoundError) as missing:
            self.client.agents.get("agent_does_not_exist")
        error = missing.exception
        self.assertEqual((error.status, error.code), (404, "not_found"))
        self.assertTrue(error.request_id)
        with self.assertRaises(UnprocessableEntityError) as invalid:
            self.client.api_keys.create({"name": "bad", "scope": "everything"})  # type: ignore[typeddict-item]
        error = invalid.exception
        self.assertEqual((error.status, error.code), (422, "validation_failed"))
        self.assertTrue(error.request_id)
        self.assertEqual(error.errors[0]["field"], "scope", describe(error.body))
        self.assertIn("scope", str(error))


if __name__ == "__main__":
    unittest.main()
