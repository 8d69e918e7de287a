"""The package's PEP 517 build backend, standard library only: `pip install ./src/sdk/python` needs no
package index (setuptools and wheel would come from one, into pip's isolated build environment).

It builds the pure-Python wheel (py3-none-any), the sdist, and PEP 660 editable wheels, with the
metadata of pyproject.toml's [project] table. Archives are reproducible: entries sorted, timestamps
from SOURCE_DATE_EPOCH (else 1980-01-01).
"""
from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import tarfile
import time
import zipfile
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "parley"
# What an sdist carries besides the package: enough to build the wheel again.
SDIST_EXTRAS = ("pyproject.toml", "README.md", "_build/parley_build.py")


# ---------------------------------------------------------------- PEP 517 / 660 hooks


def get_requires_for_build_wheel(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def get_requires_for_build_sdist(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def get_requires_for_build_editable(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def build_wheel(wheel_directory: str, config_settings: Optional[Dict[str, Any]] = None, metadata_directory: Optional[str] = None) -> str:
    files = [(f"{PACKAGE}/{path.relative_to(ROOT / PACKAGE).as_posix()}", path.read_bytes()) for path in _package_files()]
    return _write_wheel(wheel_directory, files)


def build_editable(wheel_directory: str, config_settings: Optional[Dict[str, Any]] = None, metadata_directory: Optional[str] = None) -> str:
    # A .pth line puts the source folder on sys.path: edits take effect without reinstalling.
    return _write_wheel(wheel_directory, [(f"{_dist_name()}.pth", f"{ROOT}\n".encode())])


def build_sdist(sdist_directory: str, config_settings: Optional[Dict[str, Any]] = None) -> str:
    project = read_project()
    base = f"{_dist_name()}-{project['version']}"
    entries = [(f"{base}/PKG-INFO", _metadata(project))]
    entries += [(f"{base}/{name}", (ROOT / name).read_bytes()) for name in SDIST_EXTRAS]
    entries += [(f"{base}/{path.relative_to(ROOT).as_posix()}", path.read_bytes()) for path in _package_files()]
    filename = f"{base}.tar.gz"
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.PAX_FORMAT) as archive:
        for name, data in sorted(entries):
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(data), _timestamp(), 0o644
            archive.addfile(info, io.BytesIO(data))
    Path(sdist_directory, filename).write_bytes(buffer.getvalue())
    return filename


# ---------------------------------------------------------------- the archives


def _package_files() -> List[Path]:
    return sorted(path for path in (ROOT / PACKAGE).rglob("*") if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc")


def _dist_name() -> str:
    """The project name as wheel and sdist file names spell it (PEP 427, PEP 625)."""
    return re.sub(r"[-_.]+", "_", read_project()["name"]).lower()


def _write_wheel(directory: str, files: List[Tuple[str, bytes]]) -> str:
    project = read_project()
    _check_version(project["version"])
    info = f"{_dist_name()}-{project['version']}.dist-info"
    wheel = b"Wheel-Version: 1.0\nGenerator: parley_build\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    entries = sorted(files) + [(f"{info}/METADATA", _metadata(project)), (f"{info}/WHEEL", wheel)]
    record = "".join(f"{name},sha256={_digest(data)},{len(data)}\n" for name, data in entries) + f"{info}/RECORD,,\n"
    entries.append((f"{info}/RECORD", record.encode()))
    filename = f"{_dist_name()}-{project['version']}-py3-none-any.whl"
    with zipfile.ZipFile(Path(directory, filename), "w", zipfile.ZIP_DEFLATED) as archive:
        stamp = time.gmtime(_timestamp())[:6]
        for name, data in entries:
            entry = zipfile.ZipInfo(name, date_time=stamp)
            entry.external_attr = 0o644 << 16
            archive.writestr(entry, data, zipfile.ZIP_DEFLATED)
    return filename


def _digest(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _timestamp() -> int:
    return max(int(os.environ.get("SOURCE_DATE_EPOCH", "315532800")), 315532800)  # zip cannot date before 1980


def _check_version(version: str) -> None:
    """The version pip installs is the one the package reports."""
    declared = re.search(r'__version__ = "([^"]+)"', (ROOT / PACKAGE / "_version.py").read_text(encoding="utf-8"))
    if not declared or declared.group(1) != version:
        raise ValueError(f"pyproject.toml says version {version}, {PACKAGE}/_version.py says {declared and declared.group(1)}")


def _metadata(project: Dict[str, Any]) -> bytes:
    """Core metadata 2.1 from the [project] table."""
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}", f"Version: {project['version']}"]
    if project.get("description"):
        lines.append(f"Summary: {project['description']}")
    if project.get("license", {}).get("text"):
        lines.append(f"License: {project['license']['text']}")
    lines += [f"Classifier: {classifier}" for classifier in project.get("classifiers", [])]
    if project.get("requires-python"):
        lines.append(f"Requires-Python: {project['requires-python']}")
    lines += [f"Requires-Dist: {requirement}" for requirement in project.get("dependencies", [])]
    readme = project.get("readme")
    if readme:
        lines.append("Description-Content-Type: text/markdown")
        return ("\n".join(lines) + "\n\n" + (ROOT / readme).read_text(encoding="utf-8")).encode()
    return ("\n".join(lines) + "\n").encode()


# ---------------------------------------------------------------- pyproject.toml


def read_project() -> Dict[str, Any]:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    try:
        import tomllib  # Python 3.11+
    except ImportError:
        return read_toml_subset(text)["project"]
    return tomllib.loads(text)["project"]


def read_toml_subset(text: str) -> Dict[str, Any]:
    """Before Python 3.11 (no tomllib): the TOML this pyproject.toml uses, i.e. tables, and keys whose
    values are strings, arrays of strings (over several lines) or inline tables of strings."""
    document: Dict[str, Any] = {}
    table = document
    pending: Optional[Tuple[str, str]] = None  # an array still open: its key and text so far
    for line in text.splitlines():
        line = _without_comment(line).strip()
        if pending is not None:
            pending = (pending[0], pending[1] + " " + line)
            if line.endswith("]"):
                table[pending[0]] = _value(pending[1])
                pending = None
            continue
        if not line:
            continue
        header = re.fullmatch(r"\[([A-Za-z0-9_.-]+)\]", line)
        if header:
            table = document
            for part in header.group(1).split("."):
                table = table.setdefault(part, {})
            continue
        key, _, value = (part.strip() for part in line.partition("="))
        key = key.strip('"')
        if value.startswith("[") and not value.endswith("]"):
            pending = (key, value)
        else:
            table[key] = _value(value)
    return document


def _without_comment(line: str) -> str:
    quoted = False
    for i, char in enumerate(line):
        if char == '"':
            quoted = not quoted
        elif char == "#" and not quoted:
            return line[:i]
    return line


def _value(text: str) -> Any:
    text = text.strip()
    if text.startswith('"'):
        return text[1:-1].encode().decode("unicode_escape") if "\\" in text else text[1:-1]
    if text.startswith("["):
        return re.findall(r'"((?:[^"\\]|\\.)*)"', text)
    if text.startswith("{"):
        return {key: value for key, value in re.findall(r'([A-Za-z0-9_-]+)\s*=\s*"((?:[^"\\]|\\.)*)"', text)}
    if text in ("true", "false"):
        return text == "true"
    raise ValueError(f"pyproject.toml: this backend does not read the value {text!r} (before Python 3.11)")
