"""Lists: the first page at hand, and every item across pages by iterating."""
from __future__ import annotations

from typing import Any, Callable, Dict, Generic, Iterator, List, Optional, TypeVar

T = TypeVar("T")


class Page(Generic[T]):
    """One page of a list (`data`, `has_more`, `next_cursor`); iterating it walks every page after it too."""

    def __init__(self, body: Dict[str, Any], fetch: Callable[[str], Page[T]]) -> None:
        self.body = body
        self.data: List[T] = list(body.get("data") or [])
        self.has_more: bool = bool(body.get("has_more"))
        self.next_cursor: Optional[str] = body.get("next_cursor")
        self._fetch = fetch

    def next_page(self) -> Optional[Page[T]]:
        """The page after this one, or None at the end."""
        if not self.has_more or not self.next_cursor:
            return None
        return self._fetch(self.next_cursor)

    def iter_pages(self) -> Iterator[Page[T]]:
        page: Optional[Page[T]] = self
        while page is not None:
            yield page
            page = page.next_page()

    def __iter__(self) -> Iterator[T]:
        for page in self.iter_pages():
            yield from page.data

    def __repr__(self) -> str:
        return f"Page(data=<{len(self.data)} items>, has_more={self.has_more}, next_cursor={self.next_cursor!r})"
