"""noisefloor: is a claimed multi-agent LLM gain real, or inside the run-to-run noise floor?

The package is layered so that data flows one way: files -> :mod:`noisefloor.logs`
(validated trial records, a DataFrame) -> :mod:`noisefloor.stats`, :mod:`noisefloor.floor`,
:mod:`noisefloor.audit` (typed, frozen results) -> :mod:`noisefloor.plots`,
:mod:`noisefloor.report` and the ``noisefloor`` command line.
"""

__version__ = "0.1.0"
