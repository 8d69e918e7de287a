"""AsyncParley: the same client for asyncio code, each call run on a worker thread (no dependencies)."""
from __future__ import annotations

import asyncio
import functools
from typing import Any, AsyncIterator, Generic, List, Optional, TypeVar

from ._auth import TokenPair
from ._client import Parley
from ._pagination import Page
from ._resources import RESOURCE_CLASSES

T = TypeVar("T")


class AsyncPage(Generic[T]):
    """A page of a list; `async for` walks every item across pages."""

    def __init__(self, page: Page[T]) -> None:
        self._page = page
        self.data: List[T] = page.data
        self.has_more = page.has_more
        self.next_cursor = page.next_cursor

    async def next_page(self) -> Optional[AsyncPage[T]]:
        following = await asyncio.to_thread(self._page.next_page)
        return AsyncPage(following) if following is not None else None

    async def __aiter__(self) -> AsyncIterator[T]:  # type: ignore[override]
        page: Optional[AsyncPage[T]] = self
        while page is not None:
            for item in page.data:
                yield item
            page = await page.next_page()


class AsyncResource:
    """Every method of the sync resource, as a coroutine function."""

    def __init__(self, resource: Any) -> None:
        self._resource = resource

    def __getattr__(self, name: str) -> Any:
        target = getattr(self._resource, name)
        if name.startswith("_") or not callable(target) or name == "session_url":
            return target  # building a URL sends nothing: no thread needed

        @functools.wraps(target)
        async def call(*args: Any, **kwargs: Any) -> Any:
            result = await asyncio.to_thread(target, *args, **kwargs)
            return AsyncPage(result) if isinstance(result, Page) else result

        return call


class AsyncParley:
    """Takes the arguments of `Parley`; `await client.agents.create(...)`, `async for agent in await client.agents.list()`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.sync = Parley(*args, **kwargs)
        for attribute in RESOURCE_CLASSES:
            setattr(self, attribute, AsyncResource(getattr(self.sync, attribute)))

    @property
    def tokens(self) -> TokenPair:
        return self.sync.tokens

    async def run_agent_tests(self, agent_id: str, **options: Any) -> Any:
        """`Parley.run_agent_tests` in a thread: the run with its results once it has finished."""
        return await asyncio.to_thread(self.sync.run_agent_tests, agent_id, **options)

    def __getattr__(self, name: str) -> Any:  # resources are set in __init__; this only serves type checkers' Any
        raise AttributeError(name)
