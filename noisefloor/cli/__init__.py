"""The ``noisefloor`` command line: one click group, one module per command group.

The CLI is thin: it parses options, calls the library and formats results. No statistics
live here.
"""

from __future__ import annotations

from typing import Any

#: Every command and group answers ``-h`` as well as ``--help``, also when a Python caller
#: invokes it directly rather than through ``noisefloor`` (click caches a command's help option
#: the first time it is asked, from the context of that call).
HELP_OPTIONS: dict[str, Any] = {"help_option_names": ["-h", "--help"]}
