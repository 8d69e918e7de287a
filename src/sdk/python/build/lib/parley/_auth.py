"""A user's tokens: lazy login, and one refresh at a time however many threads find the token expired."""
from __future__ import annotations

import threading
from typing import Callable, NamedTuple, Optional, Tuple


class TokenPair(NamedTuple):
    access_token: Optional[str]
    refresh_token: Optional[str]


class _Flight:
    """One refresh in progress; the threads that arrive while it runs wait for its outcome."""

    def __init__(self, generation: int) -> None:
        self.generation = generation
        self.done = threading.Event()
        self.error: Optional[BaseException] = None


class Session:
    """Holds the access and refresh token; `generation` counts the pairs, so a thread knows whether its token is stale."""

    def __init__(self, access_token: Optional[str], refresh_token: Optional[str], email: Optional[str], password: Optional[str]) -> None:
        self._access = access_token
        self._refresh = refresh_token
        self._email = email
        self._password = password
        self._generation = 0
        self._lock = threading.Lock()
        self._login_lock = threading.Lock()
        self._flight: Optional[_Flight] = None
        # The refresh that failed, and for which token pair: later 401s for that pair reuse the error.
        self._failed: Optional[Tuple[int, BaseException]] = None

    @property
    def tokens(self) -> TokenPair:
        with self._lock:
            return TokenPair(self._access, self._refresh)

    @property
    def can_refresh(self) -> bool:
        return self._refresh is not None

    def current(self) -> Tuple[Optional[str], int]:
        with self._lock:
            return self._access, self._generation

    def adopt(self, access_token: str, refresh_token: Optional[str]) -> None:
        with self._lock:
            self._access = access_token
            self._refresh = refresh_token
            self._generation += 1
            self._failed = None

    def ensure_login(self, login: Callable[[str, str], Tuple[str, Optional[str]]]) -> None:
        """Logs in with e-mail and password before the first call (once, whichever thread gets here first)."""
        if self._access is not None or self._email is None or self._password is None:
            return
        with self._login_lock:
            if self._access is not None:
                return
            access, refresh = login(self._email, self._password)
            self.adopt(access, refresh)

    def renew(self, generation: int, refresh: Callable[[str], Tuple[str, Optional[str]]]) -> None:
        """Replaces the pair `generation` named, unless another thread already did; raises that refresh's error if it failed."""
        with self._lock:
            if self._generation != generation:
                return  # renewed since this thread's request left: retry with the new token
            if self._failed is not None and self._failed[0] == generation:
                raise self._failed[1]
            flight = self._flight
            leader = flight is None
            if flight is None:
                flight = self._flight = _Flight(generation)
            token = self._refresh
        if leader:
            try:
                if token is None:
                    raise RuntimeError("no refresh token")
                access, new_refresh = refresh(token)
            except BaseException as error:
                flight.error = error
                with self._lock:
                    self._failed = (generation, error)
                    self._flight = None
            else:
                with self._lock:
                    self._access, self._refresh = access, new_refresh
                    self._generation += 1
                    self._flight = None
            finally:
                flight.done.set()
        else:
            flight.done.wait()
        if flight.error is not None:
            raise flight.error
