"""A scripted Anthropic Messages API server on 127.0.0.1, for driving the real Claude Code CLI in tests.

The CLI is pointed at it with ANTHROPIC_BASE_URL and a dummy key. Every request body is recorded. A
request that offers tools (the conversation itself, not the CLI's side requests such as titles) gets
the next reply of the script; any other request, or one past the end of the script, gets a short text
reply that ends the turn. Replies are streamed as server-sent events when the request asks for a stream,
as the CLI does, and sent as one JSON message otherwise.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = list[dict[str, Any]]  # the content blocks of one assistant message


def tool_use(name: str, tool_input: dict[str, Any], call_id: str = "toolu_01") -> Reply:
    return [{"type": "tool_use", "id": call_id, "name": name, "input": tool_input}]


def text(words: str) -> Reply:
    return [{"type": "text", "text": words}]


def events(message: dict[str, Any], reply: Reply, stop_reason: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """The server-sent events of one streamed message."""
    yield "message_start", {"type": "message_start", "message": {**message, "content": []}}
    for index, block in enumerate(reply):
        if block["type"] == "text":
            yield "content_block_start", {"type": "content_block_start", "index": index,
                                          "content_block": {"type": "text", "text": ""}}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            yield "content_block_start", {"type": "content_block_start", "index": index,
                                          "content_block": {**block, "input": {}}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield "message_delta", {"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                            "usage": {"output_tokens": 1}}
    yield "message_stop", {"type": "message_stop"}


class ScriptedServer:
    """Serves `script` in order to the conversation's requests and records every request body."""

    def __init__(self, script: list[Reply]) -> None:
        self.script, self.requests, self.conversation = list(script), [], []
        self.lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self.handler())

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def reply_to(self, body: dict[str, Any]) -> Reply:
        with self.lock:
            self.requests.append(body)
            if not body.get("tools"):
                return text("ok")
            self.conversation.append(body)
            return self.script.pop(0) if self.script else text("done")

    def handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the http.server name
                body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
                if "count_tokens" in self.path:
                    return self.send_json({"input_tokens": 1})
                reply = server.reply_to(body)
                stop = "tool_use" if any(b["type"] == "tool_use" for b in reply) else "end_turn"
                message = {"id": f"msg_{len(server.requests)}", "type": "message", "role": "assistant",
                           "model": body.get("model", "model"), "stop_reason": None, "stop_sequence": None,
                           "usage": {"input_tokens": 1, "output_tokens": 1}}
                if not body.get("stream"):
                    return self.send_json({**message, "content": reply, "stop_reason": stop})
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.end_headers()
                for name, data in events(message, reply, stop):
                    self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
                self.wfile.flush()

            def send_json(self, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        return Handler


@contextmanager
def scripted_server(script: list[Reply]) -> Iterator[ScriptedServer]:
    server = ScriptedServer(script)
    thread = threading.Thread(target=server.httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.httpd.shutdown()
        server.httpd.server_close()


def texts_of(body: dict[str, Any]) -> str:
    """Every string in a request's messages, joined: where tool results and hook context end up."""
    found: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
    walk(body.get("messages", []))
    return "\n".join(found)
