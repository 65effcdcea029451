"""``run.toml``: the models, their endpoints and prices, and defaults for ``tax run``.

A config file has an optional ``[run]`` table (any ``tax run`` option, written with
underscores: ``tasks``, ``models``, ``pair_models``, ``modes``, ``rollouts``, ``repeats``,
``difficulty``, ``seed``, ``turn_cap``, ``temperature``, ``max_tokens``, ``extractor_model``,
``prompt_variant``, ``variants_file``, ``solo_view``, ``solo_budget``, ``starter``, ``timeout``, ``max_retries``,
``concurrency``, ``base_url``, ``api_key_env``, ``out``) and one ``[[models]]`` table per
model::

    [[models]]
    name = "llama-3.1-8b"
    base_urls = ["http://gpu1:8000/v1", "http://gpu2:8000/v1"]
    api_key_env = "VLLM_KEY"
    concurrency = 32                 # per base URL
    price_input_per_mtok = 0.05      # USD per million tokens; omit when unknown
    price_output_per_mtok = 0.08

Options given on the command line override ``[run]``. Relative paths (``variants_file``,
``out``) are read relative to the config file.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from noisefloor.endpoints import ModelEndpoint

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

StrList = list[str] | str


class _ModelTable(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    name: str = Field(min_length=1)
    base_urls: list[str] = Field(min_length=1)
    api_key_env: str = "OPENAI_API_KEY"
    concurrency: int = Field(default=8, ge=1)
    price_input_per_mtok: float | None = Field(default=None, ge=0)
    price_output_per_mtok: float | None = Field(default=None, ge=0)


class _RunTable(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    tasks: StrList | None = None
    models: StrList | None = None
    pair_models: StrList | None = None
    modes: StrList | None = None
    rollouts: int | None = Field(default=None, ge=1)
    repeats: int | None = Field(default=None, ge=1)
    difficulty: int | None = Field(default=None, ge=0, le=2)
    seed: int | None = None
    turn_cap: int | None = Field(default=None, ge=1)
    temperature: float | None = Field(default=None, ge=0)
    max_tokens: int | None = Field(default=None, ge=1)
    extractor_model: str | None = None
    prompt_variant: StrList | None = None
    variants_file: str | None = None
    solo_view: str | None = None
    solo_budget: str | None = None
    starter: str | None = None
    timeout: float | None = Field(default=None, gt=0)
    max_retries: int | None = Field(default=None, ge=0)
    concurrency: int | None = Field(default=None, ge=1)
    base_url: StrList | None = None
    api_key_env: str | None = None
    out: str | None = None


class _File(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    run: _RunTable = Field(default_factory=_RunTable)
    models: list[_ModelTable] = Field(default_factory=list)


@dataclass(frozen=True)
class RunConfig:
    """A parsed ``run.toml``.

    Attributes
    ----------
    path : Path
    run : dict
        The ``[run]`` options that were set (lists as comma-joined strings where the
        command line takes a comma-separated list; paths made absolute).
    models : tuple of ModelEndpoint
        One per ``[[models]]`` table, in file order.
    """

    path: Path
    run: dict[str, Any]
    models: tuple[ModelEndpoint, ...]

    def model(self, name: str) -> ModelEndpoint | None:
        """The ``[[models]]`` entry named ``name``, or None."""
        return next((m for m in self.models if m.name == name), None)


_LISTS = ("tasks", "models", "pair_models", "modes", "prompt_variant")


def load_config(path: str | Path) -> RunConfig:
    """Read and validate a ``run.toml``.

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    RunConfig

    Raises
    ------
    ValueError
        Naming the file, the field (``models[1].concurrency``) and what was expected, for
        unreadable files, invalid TOML, unknown keys, wrong types or values, and duplicate
        model names.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run.toml"
    >>> _ = path.write_text('''
    ... [run]
    ... tasks = ["csp_sudoku4", "csp_time_zones"]
    ... rollouts = 5
    ... [[models]]
    ... name = "m"
    ... base_urls = ["http://127.0.0.1:8000/v1"]
    ... concurrency = 4
    ... ''')
    >>> config = load_config(path)
    >>> config.run, config.models[0].concurrency
    ({'tasks': 'csp_sudoku4,csp_time_zones', 'rollouts': 5}, 4)
    >>> _ = path.write_text('[[models]]\\nname = "m"\\nbase_urls = ["http://x/v1"]\\nconcurrency = "4"\\n')
    >>> load_config(path)
    Traceback (most recent call last):
    ...
    ValueError: ...run.toml: models[0].concurrency: Input should be a valid integer (got '4')
    """
    path = Path(path)
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except OSError as exc:
        raise ValueError(f"{path}: cannot read the config file ({exc.strerror})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: not valid TOML: {exc}") from None
    except UnicodeDecodeError as exc:  # TOML is UTF-8
        raise ValueError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}); a TOML "
                         "config file must be UTF-8") from None
    try:
        parsed = _File.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err["loc"])
        where = where.lstrip(".")
        got = f" (got {err['input']!r})" if not isinstance(err.get("input"), dict) else ""
        raise ValueError(f"{path}: {where}: {err['msg']}{got}") from None
    names = [m.name for m in parsed.models]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ValueError(f"{path}: models: each name may appear once, repeated: {dupes}")
    models = []
    for i, m in enumerate(parsed.models):
        try:
            models.append(ModelEndpoint(m.name, tuple(m.base_urls), m.api_key_env,
                                        m.concurrency, m.price_input_per_mtok,
                                        m.price_output_per_mtok))
        except ValueError as exc:
            raise ValueError(f"{path}: models[{i}]: {exc}") from None
    run = parsed.run.model_dump(exclude_none=True)
    for name in _LISTS + ("base_url",):
        if isinstance(run.get(name), list):
            run[name] = ",".join(run[name])
    for name in ("variants_file", "out"):
        if name in run:
            run[name] = str((path.parent / run[name]).resolve())
    return RunConfig(path, run, tuple(models))
