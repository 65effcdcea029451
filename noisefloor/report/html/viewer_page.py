"""The page of the tax transcript viewer (served by :mod:`noisefloor.report.html.viewer`).

One HTML document with inline CSS and script: it fetches ``/api/index`` once, filters the
rollouts in the browser (model, task, family, mode, variant, outcome, cascade label, free
text), lists at most :data:`LIST_LIMIT` of the matches, and fetches one rollout's dialogue
when it is selected. Filters are preset from the query string (``?model=m&family=csp``, as the
tax report's cells link) and the selected rollout is kept in the hash (``#key=...``).
"""

from __future__ import annotations

from noisefloor.report.html.page import CSS

__all__ = ["LIST_LIMIT", "VIEWER_HTML"]

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
