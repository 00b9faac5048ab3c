#!/usr/bin/env python3
"""An OpenAI-compatible chat-completions server for the worker tests and
benchmarks (tests/e2e/test_workers.py, bench/workers.sh): answers every
request with a minimal valid guide built from the JSON schema the request
carries (prose in the language the prompt asks for), after a latency drawn
from a log-normal distribution with the given median and 99th percentile
(p50 8 s, p99 40 s by default, multiplied by --scale), and enforces a rate
limit of its own (429 with Retry-After beyond --rpm requests in any minute),
as a provider would.

Every request is logged as one JSON line (--log): when it arrived, when it
was answered (or that the client went away), the change (#N or a sha) and language
from the prompt, and a hash of the whole conversation. The latency of a
request is drawn from a generator seeded by that hash, so a replay is
repeatable. Usage: replay_llm.py --port-file F --log L [--scale S] [--rpm N]
[--p50 S] [--p99 S]; stops on SIGTERM."""
import argparse
import hashlib
import json
import math
import os
import random
import re
import select
import signal
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

p = argparse.ArgumentParser()
p.add_argument("--port-file", required=True)
p.add_argument("--log", required=True)
p.add_argument("--scale", type=float, default=1.0)
p.add_argument("--p50", type=float, default=8.0)
p.add_argument("--p99", type=float, default=40.0)
p.add_argument("--rpm", type=float, default=0)
a = p.parse_args()

SIGMA = math.log(a.p99 / a.p50) / 2.3263  # the 99th percentile of a standard normal
lock = threading.Lock()
log = open(a.log, "a", buffering=1)
recent = []  # arrival times of answered requests in the last minute


def write_log(entry):
    with lock:
        log.write(json.dumps(entry) + "\n")


def text_for(key, lang):
    if key in ("headline",):
        return "更新说明" if lang == "zh" else "An update"
    if key in ("summary", "verdict_text", "digest"):
        return "这个改动值得浏览。" if lang == "zh" else "Worth a skim."
    return ""


def value_for(key, schema, lang):
    t = schema.get("type")
    if isinstance(t, list):
        t = next((x for x in t if x != "null"), "string")
    if t == "string":
        if "enum" in schema:
            return schema["enum"][0]
        return text_for(key, lang)
    if t == "array":
        return []
    if t in ("integer", "number"):
        return max(schema.get("minimum", 1), min(schema.get("maximum", 10), 3))
    if t == "boolean":
        return False
    if t == "object":
        props = schema.get("properties", {})
        out = {}
        for k in schema.get("required", list(props)):
            v = value_for(k, props.get(k, {}), lang)
            if k == "reason" and not v:
                v = "说明" if lang == "zh" else "reason"
            out[k] = v
        return out
    return None


def triage_answer(user):
    """Judges every PR of a triage prompt as its analysis line does (so the minimal guide
    answers meet the same judgment as without a triage), ordered by verdict and scores."""
    items = []
    for m in re.finditer(r"^\[(#\d+|[0-9a-f]{7,40})\] .*?^analysis: importance (\d+) .*?; "
                         r"insight (\d+) .*?; verdict (\w+)$", user, re.M | re.S):
        items.append({"pr": m.group(1), "importance": int(m.group(2)),
                      "insight": int(m.group(3)), "verdict": m.group(4), "scope": "",
                      "reason_zh": "回放的判断", "reason_en": "a replayed judgment"})
    order = {"close_read": 0, "selective_read": 1, "skim": 2, "skip": 3}
    items.sort(key=lambda i: (order.get(i["verdict"], 2), -i["importance"], -i["insight"]))
    return {"prs": items}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(n) or b"{}")
        messages = body.get("messages", [])
        convo = json.dumps(messages, sort_keys=True)
        key = hashlib.sha256(convo.encode()).hexdigest()[:16]
        user = messages[1]["content"] if len(messages) > 1 else ""
        m = re.search(r"Change: (#\d+|[0-9a-f]{7,40})", user)
        lang = "zh" if "Simplified Chinese" in (messages[0]["content"] if messages else "") else "en"
        schema_name = ((body.get("response_format") or {}).get("json_schema") or {}).get("name")
        if schema_name == "part_notes":
            lang = "notes"  # a large PR's notes on a group of regions serve both languages
        day = re.search(r"^Day: (\S+)", user, re.M)
        if schema_name == "triage":  # a repository-day's triage: logged by its day
            lang, m = "triage", day
        entry = {"key": key, "pr": m.group(1) if m else None, "lang": lang,
                 "turns": len(messages), "arrived": time.time()}
        if a.rpm > 0:
            with lock:
                now = time.time()
                recent[:] = [t for t in recent if now - t < 60]
                limited = len(recent) >= a.rpm
                if not limited:
                    recent.append(now)
            if limited:
                entry["status"] = 429
                write_log(entry)
                payload = b'{"error":{"message":"rate limit","type":"rate_limit"}}'
                self.send_response(429)
                self.send_header("Retry-After", "1")
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
                return
        rng = random.Random(key)
        delay = a.scale * a.p50 * math.exp(SIGMA * rng.gauss(0, 1))
        time.sleep(delay)
        schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("schema")
        if schema_name == "triage":
            answer = triage_answer(user)
        elif schema:
            answer = value_for("", schema, lang)
        else:
            answer = {"headline": text_for("headline", lang), "summary": text_for("summary", lang),
                      "verdict_text": text_for("verdict_text", lang)}
        content = json.dumps(answer, ensure_ascii=False)
        payload = json.dumps({
            "id": "replay-" + key, "object": "chat.completion", "model": body.get("model", ""),
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": len(convo) // 4, "completion_tokens": len(content) // 4},
        }).encode()
        try:
            if peer_closed(self.connection):
                # The client gave up while we slept (its own timeout, or its
                # process died): whatever we write now reaches no one.
                raise ConnectionResetError
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
            self.wfile.flush()
            entry["status"] = 200
        except (BrokenPipeError, ConnectionResetError):
            entry["status"] = "client gone"
        entry["answered"] = time.time()
        entry["delay"] = delay
        write_log(entry)


def peer_closed(sock):
    """True when the client has closed its end (readable with nothing to read)."""
    try:
        readable, _, _ = select.select([sock], [], [], 0)
        return bool(readable) and sock.recv(1, socket.MSG_PEEK) == b""
    except OSError:
        return True


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
with open(a.port_file + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.replace(a.port_file + ".tmp", a.port_file)
signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown).start())
server.serve_forever()
