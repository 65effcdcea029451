"""``noisefloor tax view``: a transcript viewer of a tax run, served on 127.0.0.1.

A small standard-library HTTP server (:class:`http.server.ThreadingHTTPServer`) serves one
page (:data:`VIEWER_HTML`), a compact index of the rollouts (``/api/index``: one row per
rollout, columns dictionary-coded) and one rollout at a time (``/api/rollout?key=...``: its
record, its message events and its judge labels). Transcripts are read lazily: each transcript
file is scanned once for the byte offset of every rollout's events (in a background thread
after start, or on first use), and a rollout's events are read by seeking to those offsets, so
a 52,800-rollout run never becomes one page.

The page is one HTML document with inline CSS and script: it fetches ``/api/index`` once,
filters the rollouts in the browser (model, task, family, mode, variant, outcome, cascade
label, free text), lists at most :data:`LIST_LIMIT` of the matches, and fetches one rollout's
dialogue when it is selected. Filters are preset from the query string
(``?model=m&family=csp``, as the tax report's cells link) and the selected rollout is kept in
the hash (``#key=...``).
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

from noisefloor.report.html.page import CSS
from noisefloor.tax.run import TaxRun, read_run

__all__ = ["INDEX_FIELDS", "LIST_LIMIT", "VIEWER_HTML", "ViewerData", "make_server", "serve"]

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


# ----------------------------------------------------------------------------- the page

#: Most rollouts listed at once (the count of all matches is always shown).
LIST_LIMIT = 400

_VIEWER_CSS = """
body{max-width:none;padding:12px 18px}
#filters{display:flex;flex-wrap:wrap;gap:8px 14px;align-items:end;margin:6px 0 8px}
#filters label{display:flex;flex-direction:column;font-size:12.5px;color:#444}
#filters select,#filters input{font:inherit;font-size:13.5px;padding:3px 5px;min-width:120px}
#layout{display:grid;grid-template-columns:minmax(380px,34%) 1fr;gap:16px}
#list{max-height:78vh;overflow:auto;border:1px solid #d0d0d0}
#list table{margin:0;width:100%}#list tr{cursor:pointer}
#list tr.sel{background:#dbeafb}
.ok{color:#006e50;font-weight:600}.fail{color:#b34700;font-weight:600}
#dialogue{max-height:84vh;overflow:auto}
.turns{display:grid;grid-template-columns:1fr 1fr;gap:6px 14px}
.colhead{font-weight:700;border-bottom:2px solid #0072B2;padding:2px 0}
.colhead.b{border-color:#E69F00}
.msg{border:1px solid #d6d6d6;border-radius:6px;padding:6px 9px;white-space:pre-wrap;
font-size:13.5px;overflow-wrap:anywhere}
.msg.a{grid-column:1;background:#eef5fb}.msg.b{grid-column:2;background:#fdf3e1}
.msg.solo{grid-column:1 / span 2;background:#f2f2f2}
.msg.relay{background:#fff;border-style:dashed;color:#333}
.msg.system{background:#fafafa;color:#444;font-size:12.5px}
.meta{font-size:11.5px;color:#666;margin-bottom:2px}
dl.kv{display:grid;grid-template-columns:repeat(3,max-content minmax(0,1fr));gap:2px 12px;
font-size:13px;margin:4px 0}
#list td{white-space:nowrap;font-size:12.5px}
#dialogue h3{font-size:15px;margin:12px 0 4px}
dl.kv dt{color:#555}dl.kv dd{margin:0;overflow-wrap:anywhere}
.err{color:#b00020}
@media print{#filters,#list{display:none}#layout{display:block}#dialogue{max-height:none}}
"""

_VIEWER_JS = r"""
(function(){
var IDX=null, SHOWN=[], LIMIT=%(limit)d;
var FILTERS=['model','task','family','mode','variant','outcome','label'];
var $=function(id){return document.getElementById(id);};
function esc(s){return String(s==null?'':s).replace(/[&<>"]/g,function(c){
return {'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[c];});}
function params(){var q=new URLSearchParams(location.search);var o={};
FILTERS.forEach(function(f){if(q.get(f))o[f]=q.get(f);});return o;}
function labelsOf(code){return IDX.dicts.label[code].split(' ');}
function build(){
var pre=params(), box=$('filters');
FILTERS.forEach(function(f){
var values=f==='label'?['L1','L2','L3','L4','none','unlabelled']:IDX.dicts[f];
var lab=document.createElement('label');lab.textContent=f;
var sel=document.createElement('select');sel.id='f-'+f;
sel.innerHTML='<option value="">(all)</option>'+values.map(function(v){
return '<option>'+esc(v)+'</option>';}).join('');
if(pre[f]){sel.value=pre[f];}
sel.addEventListener('change',apply);lab.appendChild(sel);box.appendChild(lab);});
var lab=document.createElement('label');lab.textContent='text in key';
var inp=document.createElement('input');inp.id='f-text';inp.type='search';
inp.addEventListener('input',apply);lab.appendChild(inp);box.appendChild(lab);
apply();
var m=/key=([^&]+)/.exec(location.hash);if(m){show(decodeURIComponent(m[1]));}}
function apply(){
var c=IDX.columns, n=IDX.n, want={};
FILTERS.forEach(function(f){var v=$('f-'+f).value;if(v!=='')want[f]=v;});
var codes={};
['model','task','family','mode','variant','outcome'].forEach(function(f){
if(want[f]!==undefined)codes[f]=IDX.dicts[f].indexOf(want[f]);});
var lab=want.label, text=$('f-text').value.toLowerCase(), out=[];
for(var i=0;i<n;i++){
var ok=true;for(var f in codes){if(c[f][i]!==codes[f]){ok=false;break;}}
if(!ok)continue;
if(lab!==undefined&&labelsOf(c.label[i]).indexOf(lab)<0)continue;
if(text&&c.key[i].toLowerCase().indexOf(text)<0)continue;
out.push(i);}
SHOWN=out;render();window.nfFilteredAt=performance.now();}
function render(){
var c=IDX.columns, d=IDX.dicts, rows=[];
$('count').textContent=SHOWN.length+' of '+IDX.n+' rollouts match'+
(SHOWN.length>LIMIT?' (first '+LIMIT+' listed; narrow the filters)':'');
SHOWN.slice(0,LIMIT).forEach(function(i){
var oc=d.outcome[c.outcome[i]];
rows.push('<tr data-key="'+esc(c.key[i])+'"><td>'+esc(d.model[c.model[i]])+'</td><td>'+
esc(c.instance[i])+'</td><td>'+esc(d.mode[c.mode[i]])+(d.variant[c.variant[i]]!=='baseline'?
'+'+esc(d.variant[c.variant[i]]):'')+'</td><td class="'+(oc==='success'?'ok':'fail')+'">'+
esc(oc)+'</td><td>'+esc(d.label[c.label[i]])+'</td><td>'+(c.turns[i]==null?'':c.turns[i])+
'</td></tr>');});
$('rows').innerHTML=rows.join('');}
function kv(pairs){return '<dl class="kv">'+pairs.filter(function(p){return p[1]!==undefined&&
p[1]!==null&&p[1]!=='';}).map(function(p){return '<dt>'+esc(p[0])+'</dt><dd>'+esc(p[1])+
'</dd>';}).join('')+'</dl>';}
function show(key){
Array.prototype.forEach.call(document.querySelectorAll('#rows tr'),function(r){
r.classList.toggle('sel',r.dataset.key===key);});
history.replaceState(null,'',location.pathname+location.search+'#key='+encodeURIComponent(key));
$('dialogue').innerHTML='<p>loading '+esc(key)+' ...</p>';
fetch('api/rollout?key='+encodeURIComponent(key)).then(function(r){return r.json();})
.then(function(doc){
if(doc.error){$('dialogue').innerHTML='<p class="err">'+esc(doc.error)+'</p>';return;}
var rec=doc.record, x=rec.extra||{}, h=[];
h.push('<h2 id="rollout-title">'+esc(key)+'</h2>');
h.push(kv([['model',rec.model],['protocol',rec.protocol],['task',x.task],['family',x.family],
['instance',rec.task_id],['agents',(x.model_a||'')+(x.model_b?' + '+x.model_b:'')],
['started by',x.started_by],['reward',rec.reward],['outcome',rec.infrastructure_error?
'infrastructure error':(rec.reward===1?'success':'failure')],
['termination',rec.termination_reason],['turns',x.turns],
['tokens in / out',(x.tokens_in==null?'n/a':x.tokens_in)+' / '+(x.tokens_out==null?'n/a':
x.tokens_out)],['cost (USD)',x.cost_usd==null?'n/a (not recorded)':x.cost_usd],
['latency (s)',x.latency_s],['retries',x.retries],['error',x.error]]));
h.push('<h3>Final answer and how it was read</h3>');
var shown={};['task','family','difficulty','instance_seed','mode','model_a','model_b',
'started_by','prompt_variant','turns','tokens_in','tokens_out','cost_usd','latency_s',
'retries','rollout_key','transcript','error'].forEach(function(k){shown[k]=1;});
var rest=[];Object.keys(x).forEach(function(k){if(!shown[k])rest.push([k,
typeof x[k]==='object'&&x[k]!==null?JSON.stringify(x[k]):x[k]]);});
h.push(kv(rest.length?rest:[['answer','not recorded']]));
h.push('<h3>Judge labels</h3>');
if(!doc.labels.length){h.push('<p>No judge labels for this rollout.</p>');}
else{h.push('<table class="nf-table" id="labels"><thead><tr><th>stage</th><th>label</th>'+
'<th>rater</th><th>rationale</th></tr></thead><tbody>'+doc.labels.map(function(l){
return '<tr><td>'+esc(l.category)+'</td><td>'+(l.label===1||l.label===true?
'1 (failed)':'0')+'</td><td>'+esc(l.rater)+'</td><td>'+esc(l.rationale||
'(no rationale recorded)')+'</td></tr>';}).join('')+'</tbody></table>');}
h.push('<h3>Dialogue</h3>');
if(doc.transcript_error){h.push('<p class="err">'+esc(doc.transcript_error)+'</p>');}
var pair=doc.events.some(function(e){return e.agent==='b';});
h.push('<div class="turns" id="turns">');
if(pair){h.push('<div class="colhead">agent a ('+esc(x.model_a||'')+')</div>'+
'<div class="colhead b">agent b ('+esc(x.model_b||x.model_a||'')+')</div>');}
doc.events.forEach(function(e){
var cls=e.agent==='solo'||!pair?'solo':e.agent;
var relay=e.role==='user'&&/^\[other agent\]:/.test(e.content);
var kind=e.role==='system'?' system':(relay?' relay':'');
var who=e.role==='system'?'view of agent '+e.agent:(relay?'agent '+e.agent+' receives':
(e.role==='assistant'?'agent '+e.agent+' says':e.role+' to agent '+e.agent));
h.push('<div class="msg '+cls+kind+'"><div class="meta">#'+esc(e.seq)+' '+esc(who)+
'</div>'+esc(e.content)+'</div>');});
h.push('</div>');
$('dialogue').innerHTML=h.join('');window.nfShownAt=performance.now();})
.catch(function(err){$('dialogue').innerHTML='<p class="err">'+esc(err)+'</p>';});}
$('rows').addEventListener('click',function(ev){var tr=ev.target.closest('tr');
if(tr)show(tr.dataset.key);});
fetch('api/index').then(function(r){return r.json();}).then(function(doc){IDX=doc;
$('sources').textContent=doc.sources.join(', ');build();})
.catch(function(err){$('count').textContent='could not load the index: '+err;});
})();
"""

VIEWER_HTML = (
    "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
    "style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'\">"
    f"<title>Tax transcripts</title><style>{CSS}{_VIEWER_CSS}</style></head><body>"
    "<h1>Tax transcripts</h1><p class=\"foot\" id=\"sources\"></p>"
    "<div id=\"filters\"></div><p id=\"count\">loading the index ...</p>"
    "<div id=\"layout\"><div id=\"list\"><table class=\"nf-table\"><thead><tr><th>model</th>"
    "<th>instance</th><th>mode</th><th>outcome</th><th>labels</th><th>turns</th></tr></thead>"
    "<tbody id=\"rows\"></tbody></table></div><div id=\"dialogue\"><p>Select a rollout.</p>"
    "</div></div>"
    f"<script>{_VIEWER_JS % {'limit': LIST_LIMIT}}</script></body></html>\n")


def _handler(data: ViewerData, report: Path | None) -> type[BaseHTTPRequestHandler]:
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
