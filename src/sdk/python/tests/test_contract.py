"""Every operation of the live document has its method, with the same HTTP method and path."""
from __future__ import annotations

import json
import unittest
import urllib.request

from support import URL

from parley import Parley
from parley._resources import OPERATIONS


class ContractTest(unittest.TestCase):
    def test_every_operation_has_a_method(self) -> None:
        with urllib.request.urlopen(f"{URL}/openapi.json", timeout=30) as answer:
            document = json.loads(answer.read())
        client = Parley(URL, api_key="sk_unused")
        problems = []
        seen = set()
        for path, item in document["paths"].items():
            for verb, operation in item.items():
                if not isinstance(operation, dict) or operation.get("x-required-scope") == "carrier":
                    continue
                name = operation["operationId"]
                seen.add(name)
                known = OPERATIONS.get(name)
                if known is None:
                    problems.append(f"{name} ({verb.upper()} {path}): no method")
                    continue
                if (known.http_method, known.path) != (verb.upper(), path):
                    problems.append(f"{name}: the library sends {known.http_method} {known.path}, the server serves {verb.upper()} {path}")
                method = getattr(getattr(client, known.resource, None), known.method, None)
                if not callable(method):
                    problems.append(f"{name}: client.{known.resource}.{known.method} is not callable")
        problems += [f"{name}: the library has it, the server does not" for name in sorted(set(OPERATIONS) - seen)]
        self.assertEqual(problems, [], "\n".join(problems))


if __name__ == "__main__":
    unittest.main()
