"""``noisefloor protocols run``: the noise-floor experiment on tau2-bench (optional extra ``tau2``)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from noisefloor.cli._common import HELP_OPTIONS, emit_json, handle_errors

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def _endpoint(config: dict[str, Any], name: str, base_url: str | None, api_key_env: str | None,
              option: str, concurrency: int):
    """The ModelEndpoint of ``name``: its ``[[models]]`` table in the config, with ``--base-url``
    and ``--api-key-env`` overriding it; without a ``concurrency`` in the table, each base URL
    takes as many requests in flight as there are simulations (``concurrency``)."""
    from noisefloor.endpoints import ModelEndpoint

    table = next((m for m in config.get("models", []) if m.get("name") == name), None)
    fields = dict(table or {"name": name})
    if base_url:
        fields["base_urls"] = (base_url,)
    if api_key_env:
        fields["api_key_env"] = api_key_env
    if not fields.get("base_urls"):
        raise click.UsageError(f"{option}: no base URL for model {name!r} (give {option} or a "
                               "[[models]] table with base_urls in --config)")
    fields["base_urls"] = tuple(fields["base_urls"])
    if "concurrency" not in fields and isinstance(concurrency, int) and concurrency >= 1:
        fields["concurrency"] = concurrency
    try:
        return ModelEndpoint(**fields)
    except (TypeError, ValueError) as exc:
        raise click.UsageError(f"--config: [[models]] {name!r}: {exc}") from None


def _config(path: Path | None) -> dict[str, Any]:
    if path is None:
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise click.UsageError(f"--config {path}: {exc}") from None
    unknown = set(data) - {"models", "protocols", "run"}
    if unknown:
        raise click.UsageError(f"--config {path}: unknown table(s) {sorted(unknown)} "
                               "(expected [[models]] and [protocols])")
    return data


@click.group("protocols", context_settings=HELP_OPTIONS)
def protocols() -> None:
    """Run the coordination protocols on tau2-bench (the noise-floor experiment)."""


@protocols.command("run", short_help="Run protocol arms on tau2-bench tasks, trial 0s first.", context_settings=HELP_OPTIONS)
@click.option("--domain", type=click.Choice(["retail", "airline", "telecom"]), default=None,
              help="tau2-bench domain.  [default: retail]")
@click.option("--tasks", "tasks", default=None, help="Comma-separated task ids (else --split).")
@click.option("--split", type=click.Choice(["test", "train", "base"]), default=None,
              help="tau2-bench task split when --tasks is not given.  [default: base]")
@click.option("--protocols", "protocol_list", default=None,
              help="Comma-separated arms: no_coord, pull, intercept, selective_intercept, "
                   "predicate_intercept.  [default: no_coord,pull,intercept]")
@click.option("--trials", type=int, default=None, help="Trials per task and arm.  [default: 2]")
@click.option("--agent-model", default=None, help="Agent model (a [[models]] name in --config).")
@click.option("--user-model", default=None, help="User-simulator model.  [default: --agent-model]")
@click.option("--base-url", default=None, help="OpenAI-compatible base URL of the agent model.")
@click.option("--user-base-url", default=None, help="Base URL of the user model.  [default: --base-url]")
@click.option("--api-key-env", default=None, help="Environment variable with the API key.")
@click.option("--temperature", type=float, default=None, help="Sampling temperature.  [default: 0]")
@click.option("--max-steps", type=int, default=None, help="tau2 step budget.  [default: 20]")
@click.option("--writer", type=click.Choice(["last_k", "judged"]), default=None,
              help="last_k, or judged (a --refine-model names the calls to write).  [default: last_k]")
@click.option("--refine-model", default=None,
              help="Model of the refinements: the judged writer, the selective_intercept gate, "
                   "predicate extraction for predicate_intercept.")
@click.option("--refine-base-url", default=None, help="Base URL of --refine-model.  [default: --base-url]")
@click.option("--k", "k", type=int, default=None, help="Final calls written per failed trial.  [default: 3]")
@click.option("--seed", type=int, default=None, help="Run seed.  [default: 0]")
@click.option("--concurrency", type=int, default=None, help="Simulations in flight.  [default: 4]")
@click.option("--max-retries", type=int, default=None, help="Retries per model call.  [default: 2]")
@click.option("--timeout", type=float, default=None, help="Seconds per model call.  [default: 120]")
@click.option("--retry-errors", is_flag=True, help="Run infrastructure errors of the journal again.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Run directory (resumed when it exists).")
@click.option("--config", "config_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              default=None, help="run.toml: [[models]] tables (base_urls, api_key_env, prices) and a "
                                 "[protocols] table of defaults for these options.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@handle_errors
def run(**opts: Any) -> None:
    """Run every task under every protocol arm on tau2-bench: all trial 0s, then the writer,
    then all trial 1s, ...; one store per arm; a journal that resumes after a kill."""
    config = _config(opts.pop("config_path"))
    defaults = dict(config.get("protocols", {}))
    as_json = opts.pop("as_json")
    retry_errors = opts.pop("retry_errors")
    known = set(opts) | {"protocols"}
    unknown = set(defaults) - known
    if unknown:
        raise click.UsageError(f"--config: unknown [protocols] key(s) {sorted(unknown)}")
    if "protocols" in defaults:
        defaults["protocol_list"] = defaults.pop("protocols")
    o = {k: (v if v is not None else defaults.get(k)) for k, v in opts.items()}
    if o["out"] is None:
        raise click.UsageError("--out is required (or out in the [protocols] table of --config)")
    if o["agent_model"] is None:
        raise click.UsageError("--agent-model is required")
    user_model = o["user_model"] or o["agent_model"]
    sims = o["concurrency"] if o["concurrency"] is not None else 4
    agent = _endpoint(config, o["agent_model"], o["base_url"], o["api_key_env"], "--base-url", sims)
    user = _endpoint(config, user_model, o["user_base_url"] or o["base_url"], o["api_key_env"],
                     "--user-base-url", sims)

    def as_list(value: Any) -> tuple[str, ...] | None:
        if value is None:
            return None
        items = value if isinstance(value, list) else str(value).split(",")
        return tuple(str(i).strip() for i in items if str(i).strip())

    refine = (None if o["refine_model"] is None else
              _endpoint(config, o["refine_model"], o["refine_base_url"] or o["base_url"],
                        o["api_key_env"], "--refine-base-url", sims))
    given = {"domain": o["domain"] or "retail", "agent": agent, "user": user, "refine": refine,
             "tasks": as_list(o["tasks"]), "split": o["split"]}
    if o["protocol_list"] is not None:
        given["protocols"] = as_list(o["protocol_list"])
    for name in ("trials", "temperature", "max_steps", "writer", "k", "seed", "concurrency",
                 "max_retries", "timeout"):
        if o[name] is not None:
            given[name] = o[name]
    # tau2-bench (and litellm under it) loads only once the options are known to be usable
    from noisefloor.protocols.tau2.run import ProtocolRunSettings, run_protocols

    try:
        settings = ProtocolRunSettings(**given)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    from noisefloor.endpoints import EndpointFatalError

    try:
        result = run_protocols(settings, Path(o["out"]), retry_errors=retry_errors,
                               progress=lambda line: click.echo(line, err=True))
    except EndpointFatalError as exc:
        raise click.ClickException(f"the run stopped: {exc} (check --base-url, --api-key-env "
                                   "and the model names; the same command resumes)") from None
    if as_json:
        emit_json(result.to_dict())
        return
    click.echo(f"{result.simulations} simulation(s) in {result.out} ({result.ran} run now, "
               f"{result.infrastructure_errors} infrastructure error(s), unscored)")
    for key, (wins, n) in result.success.items():
        protocol, trial = key.rsplit("/", 1)
        click.echo(f"{protocol:20} trial {trial}: {wins}/{n} succeeded")
    for protocol, n in result.events_written.items():
        click.echo(f"store {protocol:14} {n} event(s)")
    click.echo(f"trial records: {result.trials_path}")
