"""A user's tokens: lazy login, one refresh at a time however many threads find the token expired, and
a token store that lets several clients (threads, processes) act as one session."""
from __future__ import annotations

import contextlib
import json
import os
import tempfile
import threading
from typing import Any, Callable, ContextManager, NamedTuple, Optional, Protocol, Tuple

try:  # POSIX: renewals of processes sharing a file store take turns
    import fcntl
except ImportError:  # pragma: no cover - Windows: the store is still shared, renewals are not serialised
    fcntl = None  # type: ignore[assignment]


class TokenPair(NamedTuple):
    access_token: Optional[str]
    refresh_token: Optional[str]


class TokenStore(Protocol):
    """Where a session's tokens live between runs, shared by every client given the same store.

    `load()` answers the stored pair (None when there is none); `save(pair)` is called with every new
    pair and with None when the session ends. A renewal first reloads the store: a pair another client
    or process already renewed is taken instead of spending the rotated refresh token again, which the
    server would take for theft and answer by ending the session. A store may also offer `lock()`, a
    context manager held around a renewal, so that processes renew one at a time.
    Any object with `load` and `save` will do; `FileTokenStore` keeps the pair in a JSON file.
    """

    def load(self) -> Optional[TokenPair]: ...

    def save(self, pair: Optional[TokenPair]) -> None: ...


class FileTokenStore(TokenStore):
    """The pair in a JSON file (mode 0600, replaced atomically); renewals lock `<path>.lock` where the OS can."""

    def __init__(self, path: str) -> None:
        self.path = os.fspath(path)

    def load(self) -> Optional[TokenPair]:
        try:
            with open(self.path, encoding="utf-8") as handle:
                stored = json.load(handle)
        except (FileNotFoundError, ValueError):
            return None
        if not isinstance(stored, dict) or not isinstance(stored.get("access_token"), str):
            return None
        return TokenPair(stored["access_token"], stored.get("refresh_token"))

    def save(self, pair: Optional[TokenPair]) -> None:
        if pair is None:
            with contextlib.suppress(FileNotFoundError):
                os.remove(self.path)
            return
        folder = os.path.dirname(os.path.abspath(self.path))
        descriptor, temporary = tempfile.mkstemp(dir=folder, prefix=".tokens-")
        try:
            with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                json.dump({"access_token": pair.access_token, "refresh_token": pair.refresh_token}, handle)
            os.replace(temporary, self.path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.remove(temporary)
            raise

    @contextlib.contextmanager
    def lock(self) -> Any:
        if fcntl is None:
            yield
            return
        with open(self.path + ".lock", "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)


class _Flight:
    """One refresh in progress; the threads that arrive while it runs wait for its outcome."""

    def __init__(self, generation: int) -> None:
        self.generation = generation
        self.done = threading.Event()
        self.error: Optional[BaseException] = None


class Session:
    """Holds the access and refresh token; `generation` counts the pairs, so a thread knows whether its token is stale."""

    def __init__(
        self,
        access_token: Optional[str],
        refresh_token: Optional[str],
        email: Optional[str],
        password: Optional[str],
        store: Optional[TokenStore] = None,
    ) -> None:
        self._access = access_token
        self._refresh = refresh_token
        self._email = email
        self._password = password
        self._store = store
        self._generation = 0
        self._lock = threading.Lock()
        self._login_lock = threading.Lock()
        self._flight: Optional[_Flight] = None
        # The refresh that failed, and for which token pair: later 401s for that pair reuse the error.
        self._failed: Optional[Tuple[int, BaseException]] = None
        if store is not None:
            if access_token is not None:
                store.save(TokenPair(access_token, refresh_token))  # a session handed over joins the store
            else:
                self._take_stored()

    @property
    def tokens(self) -> TokenPair:
        with self._lock:
            self._take_stored()
            return TokenPair(self._access, self._refresh)

    @property
    def can_refresh(self) -> bool:
        return self._refresh is not None

    def current(self) -> Tuple[Optional[str], int]:
        with self._lock:
            self._take_stored()
            return self._access, self._generation

    def adopt(self, access_token: str, refresh_token: Optional[str]) -> None:
        with self._lock:
            self._set(access_token, refresh_token)
            if self._store is not None:
                self._store.save(TokenPair(access_token, refresh_token))

    def signed_out(self) -> None:
        """After logout: a store is emptied, so that its other clients stop using the session too (as TypeScript's
        tokenStore is); they and this one sign in again if they have e-mail and password."""
        if self._store is None:
            return  # the dead pair stays: a later call fails as the server says
        with self._lock:
            self._set(None, None)
            self._store.save(None)

    def ensure_login(self, login: Callable[[str, str], Tuple[str, Optional[str]]]) -> None:
        """Logs in with e-mail and password before the first call (once, whichever thread gets here first)."""
        with self._lock:
            self._take_stored()  # signed in meanwhile, or signed out, by another client of the store
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
            used = self._access
        if leader:
            try:
                with self._store_lock():
                    self._renew_pair(used, refresh)
            except BaseException as error:
                flight.error = error
                with self._lock:
                    self._failed = (generation, error)
                    self._flight = None
            else:
                with self._lock:
                    self._flight = None
            finally:
                flight.done.set()
        else:
            flight.done.wait()
        if flight.error is not None:
            raise flight.error

    def _renew_pair(self, used: Optional[str], refresh: Callable[[str], Tuple[str, Optional[str]]]) -> None:
        """Takes the pair another client of the store renewed meanwhile, else refreshes and stores the new one."""
        with self._lock:
            self._take_stored()
            if self._access != used:
                return
            token = self._refresh
        if token is None:
            raise RuntimeError("no refresh token")
        access, new_refresh = refresh(token)
        self.adopt(access, new_refresh)

    def _store_lock(self) -> ContextManager[Any]:
        lock = getattr(self._store, "lock", None)
        return lock() if callable(lock) else contextlib.nullcontext()

    def _take_stored(self) -> None:
        """Acts with the store's pair when another client changed it (call with the lock held)."""
        if self._store is None:
            return
        stored = self._store.load()
        access, refresh = (None, None) if stored is None else stored  # a TokenPair, or any (access, refresh) pair
        if (access, refresh) != (self._access, self._refresh):
            self._set(access, refresh)

    def _set(self, access_token: Optional[str], refresh_token: Optional[str]) -> None:
        self._access = access_token
        self._refresh = refresh_token
        self._generation += 1
        self._failed = None
