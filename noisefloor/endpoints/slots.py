"""Where a request goes: the base URLs of a model, their adaptive limits and their slots.

Each base URL (:class:`_Endpoint`) has a concurrency limit that starts at its configured
maximum, halves on a 429 (once per burst) while the URL is blocked for the ``Retry-After``, and
grows by ``1/limit`` per success back to the maximum (additive increase, multiplicative
decrease; Chiu and Jain 1989). A model's URLs (:class:`_Pool`) hand out slots: a request takes
one of the URL with the most free capacity (ties in turn); when none is free it queues, and a
freed slot goes to the longest waiting request directly (first come, first served; nobody is
woken to find the slot gone). When the only room left is blocked, the queue is served again
when the first block ends. Used by :class:`noisefloor.endpoints.client.Endpoints`.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter, deque
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from noisefloor.endpoints.client import ModelEndpoint


class _Endpoint:
    """One base URL: its HTTP client (one per URL) and its adaptive concurrency limit."""

    def __init__(self, base_url: str, client: Any,
                 max_limit: int) -> None:
        self.base_url = base_url
        self.client = client
        self.max_limit = max_limit
        self.limit = float(max_limit)
        self.in_flight = 0
        self.blocked_until = 0.0
        self.epoch = 0
        self.requests = 0
        self.failures: Counter[str] = Counter()

    def free(self, now: float) -> int:
        if now < self.blocked_until:
            return 0
        return int(self.limit) - self.in_flight

    def on_success(self) -> None:
        self.limit = min(float(self.max_limit), self.limit + 1.0 / self.limit)

    def on_rate_limit(self, epoch: int, retry_after: float) -> None:
        if epoch == self.epoch:  # one decrease per burst of 429s
            self.limit = max(1.0, self.limit / 2.0)
            self.epoch += 1
        self.blocked_until = max(self.blocked_until, time.monotonic() + retry_after)


class _Pool:
    """The base URLs of one model and how requests are spread over them.

    A request takes a slot of the URL with the most free capacity (ties in turn); when none is
    free it queues, and a freed slot is handed to the longest waiting request directly (first
    come, first served; nobody is woken to find the slot gone). When every URL with room is
    blocked by a ``Retry-After``, the queue is served again when the first block ends.
    """

    def __init__(self, spec: ModelEndpoint,
                 clients: Sequence[Any]) -> None:
        self.spec = spec
        self.endpoints = [_Endpoint(url, c, spec.concurrency)
                          for url, c in zip(spec.base_urls, clients)]
        self._waiters: deque[asyncio.Future[_Endpoint]] = deque()
        self._timer: asyncio.TimerHandle | None = None
        self._turn = 0

    def _take(self, now: float) -> _Endpoint | None:
        """A slot of the URL with the most free capacity (ties in turn), or None."""
        endpoints = self.endpoints
        n = len(endpoints)
        best, most = -1, 0
        for step in range(n):
            i = (self._turn + step) % n
            free = endpoints[i].free(now)
            if free > most:
                best, most = i, free
        if best < 0:
            return None
        chosen = endpoints[best]
        chosen.in_flight += 1
        self._turn = (best + 1) % n
        return chosen

    async def acquire(self) -> _Endpoint:
        if not self._waiters:
            chosen = self._take(time.monotonic())
            if chosen is not None:
                return chosen
        waiter: asyncio.Future[_Endpoint] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        self._dispatch()
        try:
            return await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():  # handed a slot, then cancelled
                self.release(waiter.result())
            else:
                try:
                    self._waiters.remove(waiter)
                except ValueError:
                    pass
            raise

    def release(self, endpoint: _Endpoint) -> None:
        endpoint.in_flight -= 1
        if self._waiters:
            self._dispatch()

    def _dispatch(self) -> None:
        """Hand free slots to the waiting requests, in order; time the next try when the
        only room left is blocked."""
        now = time.monotonic()
        waiters = self._waiters
        while waiters:
            if waiters[0].done():  # cancelled while queued
                waiters.popleft()
                continue
            chosen = self._take(now)
            if chosen is None:
                break
            waiters.popleft().set_result(chosen)
        if waiters and self._timer is None:
            blocked = [e.blocked_until for e in self.endpoints
                       if e.blocked_until > now and int(e.limit) > e.in_flight]
            if blocked:
                self._timer = asyncio.get_running_loop().call_later(
                    max(0.0, min(blocked) - now), self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        self._dispatch()
