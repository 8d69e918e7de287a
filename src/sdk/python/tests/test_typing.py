"""What the signatures promise a type checker: a text transcript is str, calls.wait's limit is named for what it is."""
from __future__ import annotations

import inspect
import typing
import unittest

from parley import Parley
from parley._resources import CallsResource


class SignatureTest(unittest.TestCase):
    @unittest.skipUnless(hasattr(typing, "get_overloads"), "typing.get_overloads arrived in Python 3.11")
    def test_transcript_is_typed_by_its_format(self) -> None:
        overloads = typing.get_overloads(CallsResource.transcript)  # type: ignore[attr-defined]
        by_format = {str(inspect.signature(o).parameters["format"].annotation): o.__annotations__["return"] for o in overloads}
        self.assertEqual(
            by_format,
            {
                "Literal['text']": "str",
                "Optional[Literal['json']]": "GetCallTranscriptResponse",
                "Optional[Literal['json', 'text']]": "Union[GetCallTranscriptResponse, str]",
            },
        )

    def test_wait_takes_max_wait_and_a_per_request_timeout(self) -> None:
        parameters = inspect.signature(Parley("http://parley.test", api_key="sk_test").calls.wait).parameters
        self.assertEqual(list(parameters), ["call_id", "max_wait", "interval", "request_timeout", "timeout"])


if __name__ == "__main__":
    unittest.main()
