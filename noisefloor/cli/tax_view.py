"""``noisefloor tax view RUN``: the transcript viewer of a tax run, on 127.0.0.1.

Thin layer over :func:`noisefloor.report.html.viewer.serve`.
"""

from __future__ import annotations

from pathlib import Path

import click

from noisefloor.cli._common import HELP_OPTIONS, handle_errors


@click.command("view", short_help="Browse a tax run's transcripts in the browser.", context_settings=HELP_OPTIONS)
@click.argument("logs", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="Port on 127.0.0.1 (0: one the operating system chooses).")
@click.option("--labels", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              default=None, help="Judge labels (long layout, optional rationale column); "
                                 "default judge_labels.jsonl beside trials.jsonl when present.")
@click.option("--report", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              default=None, help="A tax report.html (tax report --html) to serve at "
                                 "/report.html; its cells link into the viewer.")
@handle_errors
def view(logs, port, labels, report) -> None:
    """Serve a transcript viewer of the tax run(s) LOGS on 127.0.0.1 until Ctrl-C.

    Rollouts are filtered by model, task, family, mode, variant, outcome and cascade label;
    one rollout shows its dialogue as two columns (agent a, agent b) with the relayed
    '[other agent]:' messages, the final answer and how it was read, the judge's labels with
    their rationale, tokens and cost. Transcripts are read lazily, one rollout at a time.
    Python: noisefloor.report.html.viewer.serve(LOGS).
    """
    from noisefloor.report.html.viewer import serve

    serve(list(logs), port=port, labels=labels, report=report)
