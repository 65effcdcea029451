"""The cascade judge through the runner's endpoint layer, against a local HTTP judge server."""

import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from click.testing import CliRunner

from noisefloor.cli.tax import report
from noisefloor.endpoints import EndpointFatalError, ModelEndpoint
from noisefloor.tax.judge import judge_with_endpoint
from noisefloor.tax.run import read_run


def _fails(text: str) -> bool:
    return hashlib.sha256(text.encode()).digest()[0] % 5 == 0


class _Judge(BaseHTTPRequestHandler):
    """An OpenAI-compatible chat-completions endpoint playing a rule-based judge. Requests
    whose transcript hashes to 0 mod 5 always get HTTP 500; model 'locked' gets 401."""

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if body["model"] == "locked":
            return self._send(401, {"error": {"message": "bad key"}})
        text = body["messages"][1]["content"]
        self.server.seen.append(body)
        if _fails(text):
            return self._send(500, {"error": {"message": "boom"}})
        dialogue = text.split("[agent ", 1)[-1]
        reply = json.dumps({"L1": 0, "L2": int("?" not in dialogue), "L3": 0,
                            "L4": int("verify" not in dialogue.lower())})
        self._send(200, {"id": "x", "object": "chat.completion", "created": 0,
                         "model": body["model"],
                         "choices": [{"index": 0, "finish_reason": "stop",
                                      "message": {"role": "assistant", "content": reply}}],
                         "usage": {"prompt_tokens": 10, "completion_tokens": 5,
                                   "total_tokens": 15}})

    def _send(self, status, obj):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture()
def judge_url():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Judge)
    srv.seen = []
    # shutdown() waits for the loop's next poll: 0.05 s, not the default 0.5 s per test
    t = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}/v1", srv
    srv.shutdown()
    srv.server_close()


def test_endpoint_judge_labels_and_failures(small, judge_url):
    url, srv = judge_url
    run = read_run(small[0])
    ep = ModelEndpoint("judge-model", (url,), concurrency=4)
    res = judge_with_endpoint(run, ep, max_retries=0, timeout=5)
    n_pairs = int((run.rollouts["mode"] == "pair").sum())
    n_fail = len(res.failures)
    assert n_fail > 0 and set(res.failures["kind"]) == {"infrastructure"}
    assert len(res.labels) == 4 * (n_pairs - n_fail)
    # the failed rollouts are exactly those the server refused: never labelled 0
    refused = {k for k in res.failures["item"]}
    assert refused.isdisjoint(set(res.labels["item"]))
    assert srv.seen[0]["messages"][0]["content"].startswith("You are auditing one dialogue")
    assert srv.seen[0]["temperature"] == 0.0


def test_fatal_endpoint_error_stops(small, judge_url):
    url, _ = judge_url
    run = read_run(small[0])
    with pytest.raises(EndpointFatalError):
        judge_with_endpoint(run, ModelEndpoint("locked", (url,)), max_retries=0, timeout=5)


def test_cli_judge_options(small, judge_url, tmp_path):
    url, _ = judge_url
    out = tmp_path / "o"
    res = CliRunner().invoke(report, [str(small[0]), "--out", str(out), "--judge-model", "j",
                                      "--judge-url", url, "--judge-retries", "0", "--n-boot", "20", "--no-predict",
                                      "--permutations", "0"])
    assert res.exit_code == 0, res.output
    assert "left unlabelled" in res.output
    assert (out / "judge_labels.jsonl").exists() and (out / "fig5_cascade.png").exists()
    bad = CliRunner().invoke(report, [str(small[0]), "--out", str(out), "--judge-model", "j"])
    assert bad.exit_code == 2 and "--judge-url go together" in bad.output
