"""Former home of the boundary validators; they live in :mod:`noisefloor.stats.validation`.

Kept as a re-export for the modules that still import it under this name.
"""

from noisefloor.stats.validation import (  # noqa: F401
    ParameterError, ParameterTypeError, choice, count, literal, probability)

__all__ = ["ParameterError", "ParameterTypeError", "choice", "count", "probability"]
