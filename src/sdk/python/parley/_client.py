"""The client: credentials, retries, token refresh, and turning answers into dicts, text, bytes or pages."""
from __future__ import annotations

import json
import os
import random
import time
import urllib.parse
import uuid
from typing import Any, Dict, Mapping, Optional, Tuple

from ._auth import Session, TokenPair, TokenStore
from ._extensions import CallsResource, run_agent_tests
from ._errors import APIConnectionError, AuthenticationError, error_for, parse_retry_after
from ._files import encode_multipart
from ._pagination import Page
from ._resource import Operation
from ._resources import OPERATIONS, RESOURCE_CLASSES, Resources
from ._transport import Response, Transport
from ._version import __version__

DEFAULT_BASE_URL = "http://localhost:8080"
# Requests that cannot do harm twice; a POST joins them when it carries an Idempotency-Key.
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "DELETE", "PATCH", "PUT"})
# Their answers carry a token pair the client then acts with (`client.auth.login(...)` signs the client in).
_TOKEN_ISSUERS = frozenset({"registerUser", "login", "refreshToken"})


class Parley(Resources):
    """A client of one Parley server.

    Credentials, in order of precedence: `api_key`; `access_token`/`refresh_token`; `email`/`password`
    (logged in on the first call); else the `PARLEY_API_KEY` environment variable. `token_store`
    (`load()`/`save(pair)`, e.g. `FileTokenStore(path)`) keeps a person's session between runs and
    shares it between clients and processes, so that one's renewal is not spent again by another.
    """

    calls: CallsResource

    def __init__(
        self,
        base_url: Optional[str] = None,
        *,
        api_key: Optional[str] = None,
        email: Optional[str] = None,
        password: Optional[str] = None,
        access_token: Optional[str] = None,
        refresh_token: Optional[str] = None,
        token_store: Optional[TokenStore] = None,
        workspace_id: Optional[str] = None,
        max_retries: int = 2,
        timeout: float = 60.0,
        max_retry_delay: float = 60.0,
    ) -> None:
        self.base_url = (base_url or os.environ.get("PARLEY_URL") or DEFAULT_BASE_URL).rstrip("/")
        uses_session = any(value is not None for value in (email, password, access_token, refresh_token, token_store))
        self.api_key = api_key if api_key is not None or uses_session else os.environ.get("PARLEY_API_KEY") or None
        if (email is None) != (password is None):
            raise ValueError("pass both email and password, or neither")
        self.workspace_id = workspace_id
        self.max_retries = max_retries
        self.timeout = timeout
        self.max_retry_delay = max_retry_delay
        self._session = Session(access_token, refresh_token, email, password, None if self.api_key else token_store)
        self._transport = Transport()
        classes = dict(RESOURCE_CLASSES, calls=CallsResource)
        for attribute, cls in classes.items():
            setattr(self, attribute, cls(self))

    @property
    def tokens(self) -> TokenPair:
        """The current access and refresh token (they change on every refresh)."""
        return self._session.tokens

    #: `client.run_agent_tests(agent_id, cases=..., on_progress=...)`: a test run, once it has finished.
    run_agent_tests = run_agent_tests

    def __repr__(self) -> str:
        return f"Parley(base_url={self.base_url!r})"

    # ------------------------------------------------------------ operations

    def _operation(
        self,
        operation_id: str,
        path_params: Tuple[Any, ...],
        body: Any,
        *,
        query: Optional[Mapping[str, Any]],
        files: Optional[Mapping[str, Any]],
        fields: Optional[Mapping[str, Any]],
        idempotency_key: Optional[str],
        timeout: Optional[float],
    ) -> Any:
        op = OPERATIONS[operation_id]
        path = _fill(op.path, path_params)
        if op.paginated:
            return self._page(path, dict(query or {}), timeout)
        content: Optional[bytes] = None
        content_type: Optional[str] = None
        if files and any(value is not None for value in files.values()):
            content, content_type = encode_multipart(files, fields or {})
        elif body is not None:
            content, content_type = json.dumps(body).encode("utf-8"), "application/json"
        answer = self.request(op.http_method, path, query=query, content=content, content_type=content_type, idempotency_key=idempotency_key, timeout=timeout)
        result = _decode(op, answer)
        if operation_id in _TOKEN_ISSUERS:
            self._adopt(result)
        if operation_id == "logout" and not self.api_key:
            self._session.signed_out()
        return result

    def _page(self, path: str, query: Dict[str, Any], timeout: Optional[float]) -> Page[Any]:
        answer = self.request("GET", path, query=query, timeout=timeout)
        return Page(json.loads(answer.body), lambda cursor: self._page(path, {**query, "cursor": cursor}, timeout))

    def _websocket_url(self, operation_id: str, query: Optional[Mapping[str, Any]]) -> str:
        op = OPERATIONS[operation_id]
        base = "ws" + self.base_url[4:] if self.base_url.startswith("http") else self.base_url
        return base + op.path + _query_string(query)

    # ------------------------------------------------------------ HTTP

    def request(
        self,
        method: str,
        path: str,
        *,
        query: Optional[Mapping[str, Any]] = None,
        content: Optional[bytes] = None,
        content_type: Optional[str] = None,
        idempotency_key: Optional[str] = None,
        timeout: Optional[float] = None,
        authenticate: bool = True,
    ) -> Response:
        """Any request, with the client's credentials, retries and refresh; raises an APIError for 4xx/5xx."""
        method = method.upper()
        url = self.base_url + path + _query_string(query)
        headers = {"User-Agent": f"parley-python/{__version__}", "Accept": "application/json, */*;q=0.5"}
        if content_type:
            headers["Content-Type"] = content_type
        if self.workspace_id:
            headers["X-Workspace-Id"] = self.workspace_id
        # One key per logical call, reused by its retries: the server runs the POST once.
        if method == "POST" and idempotency_key is None and not path.startswith("/v1/auth/"):
            idempotency_key = str(uuid.uuid4())
        if idempotency_key is not None:
            headers["Idempotency-Key"] = idempotency_key
        safe = method in _SAFE_METHODS or idempotency_key is not None
        wait = self.timeout if timeout is None else timeout
        refreshed = False
        while True:
            generation = self._authorize(headers) if authenticate else None
            answer = self._send(method, url, headers, content, wait, safe)
            if answer.status < 400:
                return answer
            error = error_for(answer.status, answer.body, answer.headers)
            if isinstance(error, AuthenticationError) and error.code == "token_expired" and generation is not None and not refreshed and self._session.can_refresh:
                self._session.renew(generation, self._refresh_tokens)
                refreshed = True
                continue
            raise error

    def _authorize(self, headers: Dict[str, str]) -> Optional[int]:
        """Sets Authorization; the token generation it used (None for an API key or no credential)."""
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
            return None
        self._session.ensure_login(self._login)
        access, generation = self._session.current()
        if access is None and self._session.can_refresh:
            # Only a refresh token was given: trade it for a pair before the first call.
            self._session.renew(generation, self._refresh_tokens)
            access, generation = self._session.current()
        if access is None:
            headers.pop("Authorization", None)
            return None
        headers["Authorization"] = f"Bearer {access}"
        return generation

    def _send(self, method: str, url: str, headers: Mapping[str, str], content: Optional[bytes], timeout: float, safe: bool) -> Response:
        attempt = 0
        while True:
            try:
                answer = self._transport.send(method, url, headers, content, timeout)
            except APIConnectionError:
                if not safe or attempt >= self.max_retries:
                    raise
                self._sleep(self._backoff(attempt))
                attempt += 1
                continue
            if attempt < self.max_retries and (answer.status == 429 or (answer.status >= 500 and safe)):
                # A 429 was never run, so it is repeated whatever the method.
                asked = parse_retry_after(answer.headers.get("retry-after"))
                self._sleep(min(asked, self.max_retry_delay) if asked is not None else self._backoff(attempt))
                attempt += 1
                continue
            return answer

    def _backoff(self, attempt: int) -> float:
        return min(0.5 * 2**attempt, 8.0, self.max_retry_delay) * random.uniform(0.8, 1.2)

    def _sleep(self, seconds: float) -> None:
        time.sleep(seconds)

    # ------------------------------------------------------------ tokens

    def _login(self, email: str, password: str) -> Tuple[str, Optional[str]]:
        body = json.dumps({"email": email, "password": password}).encode("utf-8")
        answer = self.request("POST", "/v1/auth/login", content=body, content_type="application/json", authenticate=False)
        pair = json.loads(answer.body)
        return pair["access_token"], pair.get("refresh_token")

    def _refresh_tokens(self, refresh_token: str) -> Tuple[str, Optional[str]]:
        body = json.dumps({"refresh_token": refresh_token}).encode("utf-8")
        answer = self.request("POST", "/v1/auth/refresh", content=body, content_type="application/json", authenticate=False)
        pair = json.loads(answer.body)
        return pair["access_token"], pair.get("refresh_token")

    def _adopt(self, answer: Any) -> None:
        """Keeps the tokens of a login, registration or refresh the caller made (unless the client uses an API key)."""
        if not self.api_key and isinstance(answer, dict) and isinstance(answer.get("access_token"), str):
            self._session.adopt(answer["access_token"], answer.get("refresh_token"))


def _fill(path: str, params: Tuple[Any, ...]) -> str:
    parts = path.split("{")
    out = parts[0]
    for value, part in zip(params, parts[1:]):
        out += urllib.parse.quote(str(value), safe="") + part.split("}", 1)[1]
    return out


def _query_string(query: Optional[Mapping[str, Any]]) -> str:
    if not query:
        return ""
    pairs = [(key, _query_value(value)) for key, value in query.items() if value is not None]
    return "?" + urllib.parse.urlencode(pairs) if pairs else ""


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(_query_value(v) for v in value)
    return str(value)


def _decode(op: Operation, answer: Response) -> Any:
    if op.response == "none" or answer.status == 204:
        return None
    if op.response == "binary":
        return answer.body
    kind = answer.content_type
    if kind == "application/json" or kind.endswith("+json"):
        return json.loads(answer.body) if answer.body else None
    if kind.startswith("text/") or kind in ("application/javascript", "application/xml") or op.response == "text":
        return answer.body.decode(_charset(answer), "replace")
    return answer.body


def _charset(answer: Response) -> str:
    for part in answer.headers.get("content-type", "").split(";")[1:]:
        name, _, value = part.strip().partition("=")
        if name.lower() == "charset" and value:
            return value.strip('"')
    return "utf-8"
