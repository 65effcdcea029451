"""``noisefloor tax view``: a transcript viewer of a tax run, served on 127.0.0.1.

A small standard-library HTTP server (:class:`http.server.ThreadingHTTPServer`) serves one
page (:data:`noisefloor.report.html.viewer_page.VIEWER_HTML`), a compact index of the rollouts
(``/api/index``: one row per rollout, columns dictionary-coded) and one rollout at a time
(``/api/rollout?key=...``: its record, its message events and its judge labels). Transcripts
are read lazily: each transcript file is scanned once for the byte offset of every rollout's
events (in a background thread after start, or on first use), and a rollout's events are read
by seeking to those offsets, so a 52,800-rollout run never becomes one page.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import orjson
import pandas as pd

from noisefloor.tax.run import TaxRun, read_run

__all__ = ["INDEX_FIELDS", "ViewerData", "make_server", "serve"]

#: Columns of ``/api/index``, in order (every one is a filter or a column of the list).
INDEX_FIELDS = ("model", "task", "family", "mode", "variant", "outcome", "label", "instance",
                "trial", "turns", "key")
#: The viewer listens on the loopback interface only.
HOST = "127.0.0.1"
_CODED = ("model", "task", "family", "mode", "variant", "outcome", "label")


def _outcome(success: Any, infra: bool) -> str:
    if infra:
        return "infrastructure_error"
    if success is pd.NA or success is None or success != success:
        return "no_reward"
    return "success" if bool(success) else "failure"


@dataclass
class ViewerData:
    """What the viewer serves: the run's rollouts, their labels and transcript offsets.

    Parameters
    ----------
    run : TaxRun
        The run (:func:`noisefloor.tax.run.read_run`).
    labels : pandas.DataFrame, optional
        Judge labels in the long layout (``item, rater, category, label`` and, when present,
        ``rationale``); default ``judge_labels.jsonl`` beside the first ``trials.jsonl``.
    """

    run: TaxRun
    labels: pd.DataFrame | None = None
    _offsets: dict[str, dict[str, list[int]]] = field(default_factory=dict)
    _record_offsets: dict[str, list[int]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _labels_by_key: dict[str, list[dict]] = field(default_factory=dict)
    _index: bytes = b""

    def __post_init__(self) -> None:
        if self.labels is not None and len(self.labels):
            for rec in self.labels.to_dict(orient="records"):
                self._labels_by_key.setdefault(str(rec["item"]), []).append(
                    {k: (None if isinstance(v, float) and v != v else v)
                     for k, v in rec.items() if k != "item"})
        self._index = self._build_index()

    @classmethod
    def open(cls, paths: str | Path | Sequence[str | Path],
             labels: str | Path | None = None) -> ViewerData:
        """Read a run (directories or ``trials.jsonl`` files) and its labels.

        Raises
        ------
        TaxRunError
            A bad record (file, line and field named).
        ValueError
            A labels file that is not JSONL with ``item``, ``category`` and ``label``.
        """
        run = read_run(paths)
        if labels is None:
            guess = Path(run.sources[0]).parent / "judge_labels.jsonl"
            labels = guess if guess.exists() else None
        table = None
        if labels is not None:
            rows = []
            with open(labels, "rb") as fh:
                for n, raw in enumerate(fh, 1):
                    if not raw.strip():
                        continue
                    try:
                        rec = orjson.loads(raw)
                    except orjson.JSONDecodeError as exc:
                        raise ValueError(f"{labels}:{n}: not valid JSON ({exc})") from None
                    missing = [f for f in ("item", "category", "label")
                               if not isinstance(rec, dict) or f not in rec]
                    if missing:
                        raise ValueError(f"{labels}:{n}: field {missing[0]!r} missing (a label "
                                         "line needs item, rater, category, label)")
                    rows.append(rec)
            table = pd.DataFrame(rows)
        return cls(run, table)

    def _label_text(self, key: str) -> str:
        fired = sorted({str(r["category"]) for r in self._labels_by_key.get(key, ())
                        if r.get("label") in (1, True)})
        return " ".join(fired) if fired else ("none" if key in self._labels_by_key
                                              else "unlabelled")

    def _build_index(self) -> bytes:
        df = self.run.rollouts
        cols: dict[str, list] = {
            "model": df["model"].astype(str).tolist(), "task": df["task"].astype(str).tolist(),
            "family": df["family"].astype(str).tolist(), "mode": df["mode"].astype(str).tolist(),
            "variant": df["variant"].astype(str).tolist(),
            "outcome": [_outcome(s, bool(i)) for s, i in
                        zip(df["success"], df["infrastructure_error"])],
            "label": [self._label_text(k) for k in df["rollout_key"]],
            "instance": df["instance"].astype(str).tolist(),
            "trial": [int(t) for t in df["trial"]],
            "turns": [None if t != t or t is None else int(t) for t in df["turns"]],
            "key": df["rollout_key"].astype(str).tolist()}
        dicts, coded = {}, {}
        for name in _CODED:
            values = sorted(set(cols[name]))
            pos = {v: i for i, v in enumerate(values)}
            dicts[name] = values
            coded[name] = [pos[v] for v in cols[name]]
        doc = {"fields": list(INDEX_FIELDS), "dicts": dicts, "n": len(df),
               "sources": list(self.run.sources),
               "columns": {n: coded.get(n, cols[n]) for n in INDEX_FIELDS}}
        return orjson.dumps(doc)

    @property
    def index_json(self) -> bytes:
        """The ``/api/index`` document (bytes)."""
        return self._index

    def _scan(self, path: str) -> dict[str, list[int]]:
        with self._lock:
            found = self._offsets.get(path)
            if found is not None:
                return found
        offsets: dict[str, list[int]] = {}
        needle = b'"rollout_key"'
        with open(path, "rb") as fh:
            pos = 0
            for raw in fh:
                i = raw.find(needle)
                if i >= 0:
                    j = raw.find(b'"', raw.find(b":", i + len(needle)) + 1)
                    end = raw.find(b'"', j + 1)
                    span = raw[j + 1:end]
                    key = (span.decode("utf-8") if b"\\" not in span
                           else orjson.loads(raw)["rollout_key"])
                    offsets.setdefault(key, []).append(pos)
                pos += len(raw)
        with self._lock:
            self._offsets[path] = offsets
        return offsets

    def prefetch(self) -> None:
        """Scan every transcript file for its offsets (run in a background thread)."""
        for path in dict.fromkeys(self.run.rollouts["transcript"].dropna()):
            if Path(path).exists():
                self._scan(str(path))

    def _record(self, source: str, line: int) -> dict:
        with self._lock:
            offs = self._record_offsets.get(source)
        if offs is None:
            offs, pos = [], 0
            with open(source, "rb") as fh:
                for raw in fh:
                    offs.append(pos)
                    pos += len(raw)
            with self._lock:
                self._record_offsets[source] = offs
        with open(source, "rb") as fh:
            fh.seek(offs[line - 1])
            return orjson.loads(fh.readline())

    def rollout(self, key: str) -> dict[str, Any]:
        """One rollout: ``record`` (its trials.jsonl line), ``events`` (sorted by ``seq``),
        ``labels`` (judge rows) and ``transcript_error`` (why no events, or "").

        Raises
        ------
        KeyError
            An unknown rollout key.
        """
        df = self.run.rollouts
        hit = df.index[df["rollout_key"] == key]
        if len(hit) == 0:
            raise KeyError(f"no rollout {key!r} in the run")
        row = df.loc[hit[0]]
        record = self._record(str(row["source"]), int(row["line"]))
        events: list[dict] = []
        problem = ""
        path = row["transcript"]
        if not isinstance(path, str) or not Path(path).exists():
            problem = f"transcript file {path} does not exist"
        else:
            offs = self._scan(path).get(key, [])
            with open(path, "rb") as fh:
                for o in offs:
                    fh.seek(o)
                    events.append(orjson.loads(fh.readline()))
            events.sort(key=lambda e: e.get("seq", 0))
            if not events:
                problem = f"no events with this rollout_key in {path}"
        return {"key": key, "record": record, "events": events,
                "labels": self._labels_by_key.get(key, []), "transcript_error": problem}


def _handler(data: ViewerData, report: Path | None) -> type[BaseHTTPRequestHandler]:
    from noisefloor.report.html.viewer_page import VIEWER_HTML

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # quiet
            return

        def _send(self, body: bytes, ctype: str, status: int = 200) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            url = urlparse(self.path)
            if url.path in ("/", "/viewer", "/index.html"):
                self._send(VIEWER_HTML.encode("utf-8"), "text/html; charset=utf-8")
            elif url.path == "/api/index":
                self._send(data.index_json, "application/json")
            elif url.path == "/api/rollout":
                key = parse_qs(url.query).get("key", [""])[0]
                try:
                    body = orjson.dumps(data.rollout(key), option=orjson.OPT_SERIALIZE_NUMPY)
                except KeyError as exc:
                    self._send(json.dumps({"error": str(exc.args[0])}).encode(),
                               "application/json", 404)
                    return
                self._send(body, "application/json")
            elif url.path == "/report.html" and report is not None:
                self._send(report.read_bytes(), "text/html; charset=utf-8")
            else:
                self._send(b"not found", "text/plain", 404)

    return Handler


def make_server(data: ViewerData, *, port: int = 0, report: str | Path | None = None,
                prefetch: bool = True) -> ThreadingHTTPServer:
    """A viewer server on 127.0.0.1 (``port`` 0: one the OS chooses); not yet serving.

    The address is ``server.server_address``; call ``serve_forever()`` (and ``shutdown()``).
    With ``prefetch`` a daemon thread scans the transcript files for their offsets.
    """
    server = ThreadingHTTPServer((HOST, int(port)),
                                 _handler(data, Path(report) if report else None))
    server.daemon_threads = True
    if prefetch:
        threading.Thread(target=data.prefetch, daemon=True).start()
    return server


def serve(paths: str | Path | Sequence[str | Path], *, port: int = 0,
          labels: str | Path | None = None, report: str | Path | None = None) -> None:
    """Serve the viewer of a run until interrupted (prints the address)."""
    server = make_server(ViewerData.open(paths, labels), port=port, report=report)
    bound = server.server_address[1]
    print(f"transcript viewer on http://{HOST}:{bound}/ (Ctrl-C stops it)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
