"""The dialogue markers of a collaboration-tax transcript: the partner's prefix, the final answer.

The runner (:mod:`harness`) writes them into every prompt and transcript; the analysis
(:mod:`noisefloor.tax.features`, :mod:`noisefloor.tax.synthetic`) reads transcripts by them.
They are defined here, below both, and :mod:`harness.vocabulary` re-exports them, so the words
the analysis looks for are the words the runner wrote.

Examples
--------
>>> "We agree. " + FINAL_MARKER + " 3412/1243/4321/2134"
'We agree. FINAL ANSWER: 3412/1243/4321/2134'
>>> (OTHER_AGENT_PREFIX + " my half has a door at C3").startswith("[other agent]")
True
"""

from __future__ import annotations

__all__ = ["FINAL_MARKER", "OTHER_AGENT_PREFIX"]

#: Message prefix that marks the partner's messages in a collaborative dialogue.
OTHER_AGENT_PREFIX = "[other agent]:"
#: Termination marker: the line that commits the pair (or the solo agent) to an answer.
FINAL_MARKER = "FINAL ANSWER:"
