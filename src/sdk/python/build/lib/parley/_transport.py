"""One HTTP exchange over urllib: no retries, no auth; those live in the client."""
from __future__ import annotations

import http.client
import socket
import urllib.error
import urllib.request
from typing import Dict, Mapping, Optional

from ._errors import APIConnectionError, APITimeoutError


class Response:
    """Status, lower-cased headers and the whole body of one answer."""

    def __init__(self, status: int, headers: Mapping[str, str], body: bytes) -> None:
        self.status = status
        self.headers: Dict[str, str] = {k.lower(): v for k, v in headers.items()}
        self.body = body

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "").split(";")[0].strip().lower()


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    # A redirect would replay a POST as GET and drop the Authorization header; surface it instead.
    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        return None


class Transport:
    """Sends requests; replace or wrap `send` to observe or fake traffic."""

    def __init__(self) -> None:
        self._opener = urllib.request.build_opener(_NoRedirect())

    def send(self, method: str, url: str, headers: Mapping[str, str], body: Optional[bytes], timeout: float) -> Response:
        request = urllib.request.Request(url, data=body, headers=dict(headers), method=method)
        try:
            with self._opener.open(request, timeout=timeout) as answer:
                return Response(answer.status, dict(answer.headers.items()), answer.read())
        except urllib.error.HTTPError as error:
            with error:
                return Response(error.code, dict(error.headers.items()) if error.headers else {}, error.read())
        except (socket.timeout, TimeoutError) as error:
            raise APITimeoutError(f"{method} {url}: no answer within {timeout} s") from error
        except urllib.error.URLError as error:
            if isinstance(error.reason, (socket.timeout, TimeoutError)):
                raise APITimeoutError(f"{method} {url}: no answer within {timeout} s") from error
            raise APIConnectionError(f"{method} {url}: {error.reason}") from error
        except (OSError, ValueError, http.client.HTTPException) as error:
            # ConnectionResetError, RemoteDisconnected (http.client), a malformed URL
            raise APIConnectionError(f"{method} {url}: {error}") from error
