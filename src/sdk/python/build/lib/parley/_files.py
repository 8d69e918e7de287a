"""Files for uploads (contacts CSV, knowledge documents): a path, bytes or an open binary file."""
from __future__ import annotations

import mimetypes
import os
import uuid
from typing import IO, Any, List, Mapping, Optional, Tuple, Union

#: A path (str or PathLike), the content itself (bytes), or a file opened in binary mode.
FileInput = Union[str, os.PathLike, bytes, bytearray, IO[bytes]]


def read_file(value: Any, fallback_name: str = "upload") -> Tuple[str, bytes]:
    """(filename, content) of a FileInput; a bare str is a path, never content."""
    if isinstance(value, (bytes, bytearray)):
        return fallback_name, bytes(value)
    if isinstance(value, (str, os.PathLike)):
        with open(value, "rb") as handle:
            return os.path.basename(os.fspath(value)), handle.read()
    read = getattr(value, "read", None)
    if callable(read):
        content = read()
        if isinstance(content, str):
            raise TypeError("open the file in binary mode ('rb')")
        name = getattr(value, "name", None)
        return (os.path.basename(name) if isinstance(name, str) and name else fallback_name), bytes(content)
    raise TypeError(f"expected a path, bytes or a binary file object, got {type(value).__name__}")


def encode_multipart(files: Mapping[str, Any], fields: Mapping[str, Any]) -> Tuple[bytes, str]:
    """multipart/form-data body and its Content-Type. Encoded once per call, so retries send the same bytes."""
    boundary = f"parley-{uuid.uuid4().hex}"
    parts: List[bytes] = []
    for name, value in fields.items():
        if value is None:
            continue
        text = value if isinstance(value, str) else str(value)
        parts.append(_part(boundary, f'form-data; name="{_quote(name)}"', None, text.encode("utf-8")))
    for name, value in files.items():
        if value is None:
            continue
        filename, content = read_file(value, fallback_name=name)
        kind = mimetypes.guess_type(filename)[0] or "application/octet-stream"
        parts.append(_part(boundary, f'form-data; name="{_quote(name)}"; filename="{_quote(filename)}"', kind, content))
    return b"".join(parts) + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def _part(boundary: str, disposition: str, content_type: Optional[str], content: bytes) -> bytes:
    head = f"--{boundary}\r\nContent-Disposition: {disposition}\r\n"
    if content_type:
        head += f"Content-Type: {content_type}\r\n"
    return head.encode("utf-8") + b"\r\n" + content + b"\r\n"


def _quote(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', "%22").replace("\r", "%0D").replace("\n", "%0A")
