"""The MCP server driven by the official TypeScript SDK client
(@modelcontextprotocol/sdk from npm, tests/npm/mcp-client.mjs): `mergelens mcp`
over stdio and /mcp of `mergelens serve` over streamable HTTP, on the sample
store: initialize, ping, tools/list, every tool called and its result checked,
bad arguments answered as tool errors, an unknown tool and method as JSON-RPC
errors; over HTTP also 202 for notifications, Origin, Accept and version
checks. Also a raw stdio session without the SDK: protocol version negotiation
and a parse error. And the results' size on a busy generated repository
(scripts/make-big-repo.py, ~110 merges a day): every result under 8,000
tokens by a real tokenizer (js-tiktoken), paged with cursors that walk a
day once, `fields`, one copy of the result (tests/npm/mcp-budget.mjs)."""
import os
import sys
import json
import subprocess

import common
import npm_tools

args = common.parse_args()
npm = npm_tools.node_or_skip(args)
db = npm_tools.sample_store(args)


def test_stdio_with_the_sdk_client():
    npm_tools.node(npm, "mcp-client.mjs", "stdio", args.binary, db)


def test_streamable_http_with_the_sdk_client():
    p, base = npm_tools.serve(args, db)
    try:
        npm_tools.node(npm, "mcp-client.mjs", "http", base + "/mcp")
    finally:
        common.stop(p)


def test_results_fit_a_models_budget_on_a_busy_repository():
    repo = os.path.join(args.work_dir, "busy")
    subprocess.run([sys.executable, os.path.join(args.source_dir, "scripts", "make-big-repo.py"),
                    repo, "--commits", "1200", "--paths", "400"], check=True, capture_output=True)
    busy = os.path.join(args.work_dir, "busy.db")
    if os.path.exists(busy):
        os.remove(busy)
    subprocess.run([args.binary, "run", repo, "--db", busy, "--lang", "both"], check=True,
                   capture_output=True)
    npm_tools.node(npm, "mcp-budget.mjs", args.binary, busy, "enginekit-bench/enginekit")


def test_raw_stdio_session():
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2024-11-05", "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "initialize",
         "params": {"protocolVersion": "2099-01-01", "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "0"}}},
        {"jsonrpc": "2.0", "id": "s", "method": "tools/call", "params": {"name": "day"}},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "day", "arguments": 3}},
    ]
    text = "\n".join(json.dumps(m) for m in lines) + "\n{not json\n"
    r = subprocess.run([args.binary, "mcp", "--db", db], input=text, capture_output=True,
                       text=True, timeout=60, check=True)
    out = [json.loads(line) for line in r.stdout.splitlines()]
    assert len(out) == 5, r.stdout  # the notification is not answered
    assert out[0]["result"]["protocolVersion"] == "2024-11-05"
    # A version it does not speak: the server answers with its newest.
    assert out[1]["result"]["protocolVersion"] == "2025-11-25"
    assert out[2]["id"] == "s" and out[2]["result"]["isError"] is False
    # One copy: the text says what the structured content holds.
    assert len(out[2]["result"]["content"]) == 1
    assert "structuredContent" in out[2]["result"]["content"][0]["text"]
    assert out[2]["result"]["structuredContent"]["changes"]
    assert out[2]["result"]["structuredContent"]["changes"][0]["page_url"] is None  # no --base-url
    assert out[3]["error"]["code"] == -32602
    assert out[4] == {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}


common.main([test_stdio_with_the_sdk_client, test_streamable_http_with_the_sdk_client,
             test_raw_stdio_session, test_results_fit_a_models_budget_on_a_busy_repository])
