"""The package promises Python 3.9: every module (and the build backend) must parse with 3.9's grammar (CI has a newer python3)."""
from __future__ import annotations

import ast
import pathlib
import sys
import unittest

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "parley"
# The build backend runs under the installing Python, which may be 3.9 too.
BACKEND = PACKAGE.parent / "_build"


class Python39GrammarTest(unittest.TestCase):
    def test_every_module_parses_as_python_3_9(self) -> None:
        modules = sorted(PACKAGE.glob("*.py")) + sorted(BACKEND.glob("*.py"))
        self.assertGreater(len(modules), 5)
        for module in modules:
            with self.subTest(module=module.name):
                ast.parse(module.read_text(encoding="utf-8"), filename=str(module), feature_version=(3, 9))

    def test_a_newer_construct_is_refused(self) -> None:
        # The check itself works: `match` arrived in 3.10.
        with self.assertRaises(SyntaxError):
            ast.parse("match x:\n    case 1:\n        pass\n", feature_version=(3, 9))


class BuildBackendTest(unittest.TestCase):
    """Before 3.11 there is no tomllib: the backend's own reader must see pyproject.toml as tomllib does."""

    def test_the_fallback_reader_agrees_with_tomllib(self) -> None:
        try:
            import tomllib
        except ImportError:
            self.skipTest("tomllib arrived in Python 3.11")
        sys.path.insert(0, str(BACKEND))
        try:
            import parley_build
        finally:
            sys.path.remove(str(BACKEND))
        text = (PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8")
        self.assertEqual(parley_build.read_toml_subset(text), tomllib.loads(text))
        self.assertEqual(parley_build.read_project()["name"], "parley-sdk")


if __name__ == "__main__":
    unittest.main()
