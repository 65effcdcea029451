"""The cascade judge on an OpenAI-compatible endpoint, through the runner's endpoint layer.

:func:`judge_with_endpoint` sends every judge request through
:class:`noisefloor.endpoints.Endpoints` (per-URL concurrency limits, 429 back-off,
retries), concurrently. A call whose retries are spent (:class:`EndpointError`) is an
infrastructure failure: the rollout is listed in ``JudgeRun.failures`` and stays unlabelled,
never scored. An authentication or not-found error (401/403/404) stops the labelling at once.
"""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from noisefloor.endpoints import EndpointError, EndpointFatalError, Endpoints, ModelEndpoint
from noisefloor.stats.warning_classes import UnknownPriceWarning
from noisefloor.tax.cascade import JudgeRun, collect_labels, judge_keys, judge_requests
from noisefloor.tax.replies import JudgeJournal
from noisefloor.tax.run import TaxRun

__all__ = ["judge_with_endpoint"]


def judge_with_endpoint(
    run: TaxRun, endpoint: ModelEndpoint, *, rater: str = "judge",
    keys: Sequence[str] | None = None, prompt: str | None = None, temperature: float | None = 0.0,
    max_tokens: int | None = 200, timeout: float = 60.0, max_retries: int = 3,
    journal: JudgeJournal | None = None, variants: bool = False,
) -> JudgeRun:
    """Label pair rollouts L1-L4 with a judge model served at an OpenAI-compatible endpoint.

    Parameters
    ----------
    run : TaxRun
    endpoint : noisefloor.endpoints.ModelEndpoint
        The judge model and its base URL(s); its ``concurrency`` bounds requests in flight.
    rater : str, default "judge"
    keys : sequence of str, optional
        Rollouts to label (default :func:`noisefloor.tax.cascade.judge_keys`: baseline pair
        rollouts with a reward; the variants' too when ``variants``).
    prompt : str, optional
        Judge instructions (default: the shipped ``judge_prompt.md``).
    temperature : float or None, default 0.0
        Sent with every request (None sends none).
    max_tokens : int or None, default 200
    timeout : float, default 60.0
        Seconds per HTTP request.
    max_retries : int, default 3
    journal : noisefloor.tax.replies.JudgeJournal, optional
        Each reply is journalled the moment it arrives (a paid call is never lost); keys the
        journal already labelled are not asked again.
    variants : bool, default False
        Also label the prompt variants' pair rollouts.

    Returns
    -------
    JudgeRun

    Raises
    ------
    noisefloor.endpoints.EndpointFatalError
        HTTP 401, 403 or 404 from the endpoint (no request can succeed).
    TaxRunError
        A selected rollout's transcript is missing.
    """
    wanted = list(judge_keys(run, variants=variants) if keys is None else keys)
    ask = journal.missing(wanted) if journal is not None else wanted
    requests = judge_requests(run, keys=ask, prompt=prompt)
    params: dict[str, Any] = {}
    if temperature is not None:
        params["temperature"] = temperature
    if max_tokens is not None:
        params["max_tokens"] = max_tokens

    async def one(eps: Endpoints, key: str, msgs: list[dict[str, str]]) -> str | BaseException:
        reply: str | BaseException
        try:
            reply = (await eps.complete(endpoint.name, msgs, **params)).text
        except EndpointFatalError:
            raise
        except EndpointError as exc:
            reply = exc
        if journal is not None:  # written as it arrives: a later failure cannot lose it
            journal.record(key, reply)
        return reply

    async def all_() -> list[str | BaseException]:
        async with Endpoints([endpoint], timeout=timeout, max_retries=max_retries) as eps:
            return await asyncio.gather(*(one(eps, k, m) for k, m in requests.items()))

    with warnings.catch_warnings():
        # the judge's cost is not part of any result, so an unknown price is not news
        warnings.simplefilter("ignore", UnknownPriceWarning)
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # no loop in this thread: the usual case
            replies = asyncio.run(all_())
        else:  # inside a running loop (Jupyter): run the requests in a thread of their own
            with ThreadPoolExecutor(1) as pool:
                replies = pool.submit(asyncio.run, all_()).result()
    if journal is not None:
        return journal.judge_run(wanted)
    return collect_labels(dict(zip(requests, replies)), rater=rater)
