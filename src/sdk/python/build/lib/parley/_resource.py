"""The base of the generated resource classes: each method hands its arguments to the client."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, NamedTuple, Optional, Tuple

if TYPE_CHECKING:
    from ._client import Parley


class Operation(NamedTuple):
    """One operation of the API, as the generated `OPERATIONS` table lists it."""

    #: The client attribute and its method, as Python spells them: `knowledge_bases`, `add_source`.
    resource: str
    method: str
    http_method: str
    path: str
    #: json, text, binary, none or websocket: how a success is returned (dict, str, bytes, None, URL).
    response: str
    paginated: bool


class Resource:
    """A group of operations (`client.agents`, `client.calls`, ...)."""

    def __init__(self, client: Parley) -> None:
        self._client = client

    def _call(
        self,
        operation_id: str,
        path_params: Tuple[Any, ...] = (),
        body: Any = None,
        *,
        query: Optional[Mapping[str, Any]] = None,
        files: Optional[Mapping[str, Any]] = None,
        fields: Optional[Mapping[str, Any]] = None,
        idempotency_key: Optional[str] = None,
        timeout: Optional[float] = None,
    ) -> Any:
        return self._client._operation(
            operation_id,
            path_params,
            body,
            query=query,
            files=files,
            fields=fields,
            idempotency_key=idempotency_key,
            timeout=timeout,
        )

    def _websocket_url(self, operation_id: str, query: Optional[Mapping[str, Any]] = None) -> str:
        return self._client._websocket_url(operation_id, query)
