#!/usr/bin/env python3
"""An OpenAI-compatible chat-completions server that replays stored answers.

Used by bench/model_answers.sh to put real model answers through `mergelens
write --llm` without a model. Each request is matched to an answer by the PR
number in its first user message ("Change: #N"): the answer is the file
ANSWERS/N.answer.json (or, for the calls of a split guide and for answers in
both languages, ANSWERS/N.<kind>.json when present, where kind is the value of
the "mergelens_call" marker the prompt carries: notes-1, notes-2, ...,
reduce, both). A request without a stored answer gets 404, which the client
treats as a permanent failure, unless --synthesize is given: then it gets a
minimal valid answer of the right shape (notes, a guide in the prompt's
language, or both languages), for measuring calls and prompt tokens on PRs
without stored answers.

A day's triage request (schema "triage", docs/triage.md) is matched by the
"Day:" line of its prompt and its part: ANSWERS/triage-DAY-K.json (K = 1
for a day in one part); it is never synthesized.

Every request is logged as one JSON line to --log: the PR, the call kind,
the prompt's size in characters, and the tokens the server reports (the
prompt's length / 4, a stand-in for the real tokenizer, and the answer's
length / 4).

    bench/replay_llm.py --answers DIR --port 0 --log requests.jsonl
prints "listening on PORT" once it accepts connections.
"""
import argparse
import json
import os
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CHANGE = re.compile(r"^Change: #(\d+)", re.M)
CALL = re.compile(r"^Call: ([a-z0-9-]+)", re.M)
DAY = re.compile(r"^Day: (\d{4}-\d\d-\d\d)", re.M)
PART = re.compile(r", part (\d+) of \d+")


def guide(lang):
    zh = lang == "zh"
    return {"headline": "合成的标题" if zh else "A synthetic headline",
            "digest": "这是合成的段落。" if zh else "A synthetic paragraph.",
            "summary": "这是合成的概要。" if zh else "A synthetic summary.",
            "verdict_text": "见下文。" if zh else "See below.", "why": "",
            "focus": [], "skim": [], "design_decisions": [], "questions": [],
            "number_cautions": [], "body_vs_code": [], "gaps": [], "advice": [],
            "audience": "", "references": [], "suggested_code": [],
            "importance": {"value": 0, "reason": ""}, "insight": {"value": 0, "reason": ""},
            "judgment": {"verdict": "", "argument": ""}}


def synthesize(kind, system):
    if kind.startswith("notes-"):
        return {"notes": [], "skim": []}
    if kind in ("both", "reduce-both"):
        return {"zh": guide("zh"), "en": guide("en")}
    return guide("zh" if "简体中文" in system else "en")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--answers", required=True)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--log", required=True)
    ap.add_argument("--synthesize", action="store_true")
    ap.add_argument("--dump", help="write each request (messages and response_format) to "
                    "DUMP/N.KIND.request.json, a retry to N.KIND.retry-K.request.json")
    args = ap.parse_args()
    if args.dump:
        os.makedirs(args.dump, exist_ok=True)
    lock = threading.Lock()
    log = open(args.log, "a", encoding="utf-8")

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            try:
                req = json.loads(body)
                user = [m["content"] for m in req["messages"] if m["role"] == "user"]
            except (ValueError, KeyError, TypeError):
                return self.reply(400, {"error": {"message": "bad request"}})
            m = CHANGE.search(user[0]) if user else None
            call = CALL.search(user[0]) if user else None
            kind = call.group(1) if call else "guide"
            pr = m.group(1) if m else ""
            # A retry (the writer naming failures) replays the same answer.
            names = [f"{pr}.{kind}.json"] if kind != "guide" else []
            names.append(f"{pr}.answer.json")
            # A day's triage (docs/triage.md): triage-DAY-K.json for part K of the day.
            fmt = (req.get("response_format") or {}).get("json_schema") or {}
            if fmt.get("name") == "triage" and user:
                day = DAY.search(user[0])
                part = PART.search(user[0])
                kind, pr = "triage", day.group(1) if day else ""
                names = [f"triage-{pr}-{part.group(1) if part else 1}.json"]
            content = None
            for name in names:
                path = os.path.join(args.answers, name)
                if os.path.exists(path):
                    with open(path, encoding="utf-8") as f:
                        content = f.read()
                    break
            if content is None and args.synthesize and kind != "triage":
                system = req["messages"][0]["content"] if req["messages"] else ""
                content = json.dumps(synthesize(kind, system), ensure_ascii=False)
            prompt_chars = sum(len(m.get("content", "")) for m in req["messages"])
            if args.dump:
                with lock:
                    base = os.path.join(args.dump, f"{pr or 'x'}.{kind}")
                    path, k = base + ".request.json", 1
                    while os.path.exists(path):
                        path, k = f"{base}.retry-{k}.request.json", k + 1
                    with open(path, "w", encoding="utf-8") as f:
                        json.dump({"messages": req["messages"],
                                   "response_format": req.get("response_format")}, f,
                                  ensure_ascii=False, indent=1)
            with lock:
                log.write(json.dumps({"pr": pr, "call": kind, "messages": len(req["messages"]),
                                      "prompt_chars": prompt_chars,
                                      "found": content is not None}) + "\n")
                log.flush()
            if content is None:
                return self.reply(404, {"error": {"message": f"no stored answer for #{pr} {kind}",
                                                  "type": "invalid_request_error"}})
            usage = {"prompt_tokens": prompt_chars // 4, "completion_tokens": len(content) // 4}
            usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
            self.reply(200, {"id": "replay", "object": "chat.completion", "model": "replay",
                             "choices": [{"index": 0, "finish_reason": "stop",
                                          "message": {"role": "assistant", "content": content}}],
                             "usage": usage})

        def reply(self, status, obj):
            data = json.dumps(obj).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    print(f"listening on {server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
