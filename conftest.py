"""Collection of the package modules' doctests: each module is imported once, by its own name.

``--import-mode=importlib`` (pyproject.toml) imports a module it collects for doctests by
executing its file under the module's dotted name. When the module's package is not imported
yet, pytest first imports the package, and a package ``__init__`` that imports the module
eagerly (``noisefloor.store`` imports ``noisefloor.store.events``) has then already loaded it;
pytest executes the file a second time and replaces the entry in ``sys.modules``. Two copies of
every class in it exist from then on (``noisefloor.store.FailedTrialAction`` is not the class
that ``noisefloor.store.events`` holds), and ``isinstance`` checks in code imported later fail,
so a doctest passed or failed depending on which file was collected first. Importing each
package module by its dotted name before pytest collects it leaves pytest the module in
``sys.modules``, which it uses as is.
"""

from __future__ import annotations

import importlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent
PACKAGES = ("noisefloor", "harness")


def _dotted(path: Path) -> str | None:
    """``noisefloor/store/events.py`` -> ``noisefloor.store.events``; None outside the packages."""
    try:
        parts = path.resolve().relative_to(ROOT).with_suffix("").parts
    except ValueError:
        return None
    if not parts or parts[0] not in PACKAGES:
        return None
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def pytest_collect_file(file_path: Path, parent: object) -> None:
    if file_path.suffix != ".py" or file_path.name == "conftest.py":
        return
    name = _dotted(file_path)
    if name is None:
        return
    try:
        importlib.import_module(name)
    except Exception:
        # pytest's own import of the file reports the error as a collection error
        pass
