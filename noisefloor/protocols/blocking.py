"""Blocking calls into :class:`noisefloor.endpoints.Endpoints` from any thread.

tau2-bench runs its simulations in threads and calls its models synchronously; the endpoint
layer is asynchronous. :class:`BlockingEndpoints` keeps the endpoint pools on one event loop in a
daemon thread and hands each call over to it, so every thread of a protocols run shares the same
per-URL concurrency limits, ``Retry-After`` blocks and retry budget: the agent, the user
simulator and the refinements alike.

Examples
--------
>>> from noisefloor.endpoints import ModelEndpoint
>>> agent = ModelEndpoint("m", ("http://127.0.0.1:9/v1",))
>>> user = ModelEndpoint("m", ("http://127.0.0.1:10/v1",))  # same name, another URL
>>> with BlockingEndpoints([agent, user, agent], timeout=5, max_retries=0) as pools:
...     len(pools.stats())
2
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import Any

from noisefloor.endpoints import Completion, Endpoints, ModelEndpoint

__all__ = ["BlockingEndpoints"]


class BlockingEndpoints:
    """The endpoint pools of a run, callable synchronously from any thread.

    Parameters
    ----------
    models : sequence of ModelEndpoint
        Every model of the run. Equal specs share one pool (one limit per base URL); two specs
        with the same ``name`` but other URLs, keys or prices get pools of their own.
    timeout : float, default 60.0
        Seconds per request (:class:`~noisefloor.endpoints.Endpoints`).
    max_retries : int, default 2
        Retries of a failed request (429 after its ``Retry-After``, timeouts, 5xx, ...).
    backoff_base, backoff_max : float, default 0.5, 30.0
        Exponential backoff between retries, in seconds.

    Raises
    ------
    ValueError
        On invalid ``timeout``, ``max_retries`` or backoff (from ``Endpoints``).

    Attributes
    ----------
    max_retries : int
    """

    def __init__(self, models: Sequence[ModelEndpoint], *, timeout: float = 60.0,
                 max_retries: int = 2, backoff_base: float = 0.5,
                 backoff_max: float = 30.0) -> None:
        groups: list[list[ModelEndpoint]] = []
        for spec in dict.fromkeys(models):  # distinct specs, in order
            group = next((g for g in groups if all(s.name != spec.name for s in g)), None)
            if group is None:
                groups.append([spec])
            else:
                group.append(spec)
        self.max_retries = max_retries
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True,
                                        name="noisefloor-endpoints")
        self._thread.start()

        async def make(group: list[ModelEndpoint]) -> Endpoints:
            return Endpoints(group, timeout=timeout, max_retries=max_retries,
                             backoff_base=backoff_base, backoff_max=backoff_max)

        self._pools: list[Endpoints] = []
        self._route: dict[ModelEndpoint, Endpoints] = {}
        try:
            for group in groups:
                pool = asyncio.run_coroutine_threadsafe(make(group), self._loop).result()
                self._pools.append(pool)
                self._route.update({spec: pool for spec in group})
        except BaseException:
            self.close()
            raise
        self._closed = False

    def complete(self, spec: ModelEndpoint, messages: list[dict[str, Any]],
                 **params: Any) -> Completion:
        """One chat completion of ``spec`` (blocks the calling thread).

        Parameters
        ----------
        spec : ModelEndpoint
            One of the models given at construction.
        messages : list of dict
        **params
            Request parameters sent as given (``tools``, ``tool_choice``, ``temperature``, ...).

        Returns
        -------
        Completion

        Raises
        ------
        KeyError
            If ``spec`` was not given at construction.
        noisefloor.endpoints.EndpointError
            When the retries are spent (an infrastructure error, never a score).
        """
        try:
            pool = self._route[spec]
        except KeyError:
            raise KeyError(f"model {spec.name!r} at {list(spec.base_urls)} is not one of the "
                           "run's endpoints") from None
        future = asyncio.run_coroutine_threadsafe(
            pool.complete(spec.name, messages, **params), self._loop)
        return future.result()

    def stats(self) -> list[dict[str, Any]]:
        """Per base URL: model, url, requests, current limit, failures by kind."""
        return [row for pool in self._pools for row in pool.stats()]

    def close(self) -> None:
        """Close every HTTP client and stop the loop (idempotent)."""
        if getattr(self, "_closed", False) or not self._loop.is_running():
            return
        self._closed = True
        for pool in getattr(self, "_pools", []):
            asyncio.run_coroutine_threadsafe(pool.aclose(), self._loop).result()
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()

    def __enter__(self) -> BlockingEndpoints:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
