"""Replies that are tool calls: the response boundary keeps them, and checks their shape."""

from __future__ import annotations

import json

import pytest

from noisefloor.endpoints.response import MalformedResponse, parse_chat_completion


def _body(message: dict, usage: dict | None = None) -> bytes:
    return json.dumps({"choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
                       **({"usage": usage} if usage else {})}).encode()


def test_a_tool_call_reply_with_null_content_is_kept():
    call = {"id": "call_1", "type": "function",
            "function": {"name": "get_order_details", "arguments": "{\"order_id\": \"#W1\"}"}}
    parsed = parse_chat_completion(_body({"role": "assistant", "content": None, "tool_calls": [call]},
                                         {"prompt_tokens": 7, "completion_tokens": 3}),
                                   "application/json")
    assert parsed.content is None and (parsed.tokens_in, parsed.tokens_out) == (7, 3)
    assert parsed.tool_calls == ({"id": "call_1", "name": "get_order_details",
                                  "arguments": "{\"order_id\": \"#W1\"}"},)


def test_a_text_reply_has_no_tool_calls():
    parsed = parse_chat_completion(_body({"role": "assistant", "content": "hi", "tool_calls": []}),
                                   "application/json")
    assert parsed.content == "hi" and parsed.tool_calls is None


@pytest.mark.parametrize("call, field", [
    ({"id": "c", "function": {"name": "f", "arguments": {"a": 1}}}, "arguments"),  # not JSON text
    ({"id": "c", "function": {"arguments": "{}"}}, "name"),
    ({"function": {"name": "f", "arguments": "{}"}}, "id"),
    ("not an object", "tool_calls.0"),
])
def test_a_malformed_tool_call_is_a_malformed_response_naming_the_field(call, field):
    with pytest.raises(MalformedResponse, match=field):
        parse_chat_completion(_body({"role": "assistant", "content": None, "tool_calls": [call]}),
                              "application/json")
