"""A deliberately small (and, on request, deliberately bad) stdio MCP server: stdlib only.

Behaviour is chosen on the command line, so each test starts exactly the misbehaviour it is
about::

    raw_server.py --discover {answer,silent,error,unsupported,legacy-only}
                  --call {ok,crash,hang,flood,garbage,bad-output,ask,mrtr-forever,
                          mrtr-echo,wrong-shape,end-listen} [--end-with result|cancelled]
                  [--ask METHOD --ask-params JSON [--then-notify METHOD --then-params JSON]...]

``--discover answer`` makes it a 2026 server (and ``initialize`` then fails with -32022);
anything else makes it a legacy server that handles ``discover`` as told and speaks
``initialize``. It answers ``tools/list`` with one tool, ``t``, and ``tools/call`` as ``--call``
says.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading

FLOOD_COUNT = 5000
MODERN = "2026-07-28"

parser = argparse.ArgumentParser()
parser.add_argument("--discover", default="error")
parser.add_argument("--call", default="ok")
parser.add_argument("--ask", default="sampling/createMessage", help="method for --call ask")
parser.add_argument("--ask-params", default='{"messages": [], "maxTokens": 5}')
parser.add_argument(
    "--then-notify", action="append", default=[], help="notification(s) sent after the answer"
)
parser.add_argument("--then-params", action="append", default=[], help="their params, in order")
parser.add_argument("--list", default="ok", help="tools/list: ok|hang")
parser.add_argument("--end-with", default="result", help="how end-listen ends: result|cancelled")
opts = parser.parse_args()

out_lock = threading.Lock()


def send(obj: dict) -> None:
    line = json.dumps(obj, separators=(",", ":"))
    with out_lock:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def result(rid, value: dict) -> None:
    if opts.discover == "answer":
        value = {"resultType": "complete", **value}
    send({"jsonrpc": "2.0", "id": rid, "result": value})


def error(rid, code: int, message: str, data=None) -> None:
    err = {"code": code, "message": message}
    if data is not None:
        err["data"] = data
    send({"jsonrpc": "2.0", "id": rid, "error": err})


TOOL = {"name": "t", "inputSchema": {"type": "object", "properties": {"x": {"type": "integer"}}}}
if opts.call == "bad-output":
    TOOL["outputSchema"] = {
        "type": "object",
        "properties": {"n": {"type": "integer"}},
        "required": ["n"],
    }

pending_answers: dict[int, dict] = {}
listens: list = []
answer_ready = threading.Condition()


def handle_call(rid, params: dict) -> None:
    mode = opts.call
    if mode == "crash":
        sys.stderr.write("raw_server: crashing on purpose\n")
        sys.stderr.flush()
        os._exit(3)
    if mode == "hang":
        return
    if mode == "flood":
        for _ in range(FLOOD_COUNT):
            send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    if mode == "garbage":
        with out_lock:
            sys.stdout.write('{"jsonrpc": "2.0", "id": \n')
            sys.stdout.write("this is not json at all\n")
            sys.stdout.flush()
    if mode == "bad-output":
        result(rid, {"content": [], "structuredContent": {"n": "not a number"}})
        return
    if mode == "wrong-shape":
        result(rid, {"content": "should be a list"})
        return
    if mode == "ask":
        # Ask the client (legacy server->client request), then report what it answered.
        ask_id = 900 + len(pending_answers)
        send(
            {
                "jsonrpc": "2.0",
                "id": ask_id,
                "method": opts.ask,
                "params": json.loads(opts.ask_params),
            }
        )
        with answer_ready:
            answer_ready.wait_for(lambda: ask_id in pending_answers, timeout=10)
        for index, method in enumerate(opts.then_notify):
            params = opts.then_params[index] if index < len(opts.then_params) else "{}"
            send({"jsonrpc": "2.0", "method": method, "params": json.loads(params)})
        text = json.dumps(pending_answers.get(ask_id), sort_keys=True)
        result(rid, {"content": [{"type": "text", "text": text}]})
        return
    if mode == "end-listen":
        # Announce a change on every open listen stream, then end each one.
        for lid in list(listens):
            tag = {"_meta": {"io.modelcontextprotocol/subscriptionId": lid}}
            send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": tag})
            if opts.end_with == "cancelled":
                send(
                    {
                        "jsonrpc": "2.0",
                        "method": "notifications/cancelled",
                        "params": {"requestId": lid, "reason": "server is shedding load"},
                    }
                )
            else:
                result(lid, {"resultType": "complete", **tag})
            listens.remove(lid)
        result(rid, {"content": [{"type": "text", "text": "ended"}]})
        return
    if mode == "mrtr-ask":
        # 2026: ask --ask/--ask-params as an input request, then report what came back
        if "requestState" not in params:
            ask = {"method": opts.ask, "params": json.loads(opts.ask_params)}
            state = {"resultType": "input_required", "requestState": "asked"}
            result(rid, {**state, "inputRequests": {"q": ask}})
            return
        answered = json.dumps(params.get("inputResponses"), sort_keys=True)
        result(rid, {"content": [{"type": "text", "text": answered}]})
        return
    if mode == "mrtr-forever":
        result(rid, {"resultType": "input_required", "requestState": "again"})
        return
    if mode == "mrtr-echo":
        if "requestState" not in params:
            result(
                rid,
                {
                    "resultType": "input_required",
                    "requestState": 'st\u00e9"\\/\u2028x',
                    "inputRequests": {
                        "q": {
                            "method": "elicitation/create",
                            "params": {
                                "message": "name?",
                                "requestedSchema": {
                                    "type": "object",
                                    "properties": {"name": {"type": "string", "default": "Zed"}},
                                },
                            },
                        }
                    },
                },
            )
            return
        echo = {
            "id": rid,
            "state": params.get("requestState"),
            "responses": params.get("inputResponses"),
        }
        result(rid, {"content": [{"type": "text", "text": json.dumps(echo, sort_keys=True)}]})
        return
    result(rid, {"content": [{"type": "text", "text": f"ok {params.get('arguments')}"}]})


def main() -> None:
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        msg = json.loads(line)
        rid = msg.get("id")
        method = msg.get("method")
        params = msg.get("params") or {}
        if method is None:  # a response to our request
            with answer_ready:
                pending_answers[rid] = msg
                answer_ready.notify_all()
            continue
        if rid is None:
            continue  # notifications
        if method == "server/discover":
            how = opts.discover
            if how == "answer":
                result(
                    rid,
                    {
                        "supportedVersions": [MODERN],
                        "capabilities": {"tools": {"listChanged": True}},
                        "ttlMs": 60000,
                        "cacheScope": "public",
                        "_meta": {
                            "io.modelcontextprotocol/serverInfo": {"name": "raw", "version": "1"}
                        },
                    },
                )
            elif how == "silent":
                pass
            elif how == "unsupported":
                error(
                    rid,
                    -32022,
                    "Unsupported protocol version",
                    {"supported": ["2099-01-01"], "requested": MODERN},
                )
            elif how == "legacy-only":
                error(
                    rid,
                    -32022,
                    "Unsupported protocol version",
                    {"supported": ["2025-06-18"], "requested": MODERN},
                )
            else:
                error(rid, -32601, "Method not found: server/discover")
            continue
        if method == "initialize":
            if opts.discover == "answer":
                error(
                    rid,
                    -32022,
                    "this server speaks 2026-07-28 only",
                    {"supported": [MODERN], "requested": params.get("protocolVersion")},
                )
                continue
            result(
                rid,
                {
                    "protocolVersion": params.get("protocolVersion", "2025-06-18")
                    if opts.discover != "legacy-only"
                    else "2025-06-18",
                    "capabilities": {"tools": {"listChanged": True}},
                    "serverInfo": {"name": "raw", "version": "1"},
                },
            )
            continue
        if method == "subscriptions/listen" and opts.discover == "answer":
            listens.append(rid)
            send(
                {
                    "jsonrpc": "2.0",
                    "method": "notifications/subscriptions/acknowledged",
                    "params": {
                        "_meta": {"io.modelcontextprotocol/subscriptionId": rid},
                        "notifications": params.get("notifications", {}),
                    },
                }
            )
            continue
        if method == "ping":
            result(rid, {})
            continue
        if method == "tools/list":
            if opts.list == "hang":
                continue
            hints = {"ttlMs": 60000, "cacheScope": "private"} if opts.discover == "answer" else {}
            result(rid, {"tools": [TOOL], **hints})
            continue
        if method == "tools/call":
            threading.Thread(target=handle_call, args=(rid, params), daemon=True).start()
            continue
        error(rid, -32601, f"Method not found: {method}")


if __name__ == "__main__":
    main()
