"""The scripted endpoint's server (:class:`noisefloor.protocols.tau2.ScriptedEndpoint`) as a
process resource: what it leaves behind once stopped. Its answers are tested through the runs
that use it (test_tau2_run.py, test_tau2_endpoints.py, test_tau2_state.py)."""

from __future__ import annotations

import http.client
import json
import threading

from noisefloor.protocols.tau2.scripted import ScriptedEndpoint


def test_stop_ends_the_handlers_of_connections_a_client_keeps_alive():
    # an HTTP/1.1 client keeps its connection open after a reply; the server's handler thread
    # waits on it for the next request, and outlived the server before stop() shut such
    # connections down (a run in a long-lived process, such as a benchmark run in a test's
    # process, was left with one thread per connection)
    before = set(threading.enumerate())
    server = ScriptedEndpoint(tasks=[]).start()
    port = int(server.base_url.rsplit(":", 1)[1].split("/")[0])
    client = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        body = json.dumps({"model": "scripted-user", "messages": [{"role": "user", "content": "hi"}]})
        client.request("POST", "/v1/chat/completions", body, {"Content-Type": "application/json"})
        reply = client.getresponse()
        assert reply.status == 200 and not reply.will_close
        reply.read()
        handlers = [t for t in set(threading.enumerate()) - before
                    if "process_request_thread" in t.name]
        assert handlers, "the kept-alive connection has no handler thread"
        server.stop()
        for thread in handlers:
            thread.join(timeout=10)
        assert not [t for t in handlers if t.is_alive()]
    finally:
        client.close()
        server.stop()
