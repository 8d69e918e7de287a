"""The package promises Python 3.9: every module must parse with 3.9's grammar (CI has a newer python3)."""
from __future__ import annotations

import ast
import pathlib
import unittest

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "parley"


class Python39GrammarTest(unittest.TestCase):
    def test_every_module_parses_as_python_3_9(self) -> None:
        modules = sorted(PACKAGE.glob("*.py"))
        self.assertGreater(len(modules), 5)
        for module in modules:
            with self.subTest(module=module.name):
                ast.parse(module.read_text(encoding="utf-8"), filename=str(module), feature_version=(3, 9))

    def test_a_newer_construct_is_refused(self) -> None:
        # The check itself works: `match` arrived in 3.10.
        with self.assertRaises(SyntaxError):
            ast.parse("match x:\n    case 1:\n        pass\n", feature_version=(3, 9))


if __name__ == "__main__":
    unittest.main()
