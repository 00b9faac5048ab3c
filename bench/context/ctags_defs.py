"""bench/context: universal-ctags' definitions of Python files, read the way
mergelens reads them (source/ctags.cc: interactive mode, JSON, the same
options), printed like ast_defs.py. Reads paths on stdin; prints the time ctags
took (process start to last tag) on stderr."""
import json
import subprocess
import sys
import time

ARGS = ["--_interactive=sandbox", "--output-format=json", "--fields=+neS", "--fields=-P",
        "--extras=-q", "--kinds-Python=-xIil", "--languages=Python,C,C++,CUDA"]


def main():
    program = sys.argv[1] if len(sys.argv) > 1 else "ctags"
    paths = [p for p in sys.stdin.read().split("\n") if p]
    payload = bytearray()
    for p in paths:
        with open(p, "rb") as f:
            data = f.read()
        payload += json.dumps({"command": "generate-tags", "filename": p, "size": len(data)}).encode() + b"\n" + data
    t0 = time.monotonic()
    res = subprocess.run([program] + ARGS, input=bytes(payload), capture_output=True, check=True)
    elapsed = time.monotonic() - t0
    out = []
    for line in res.stdout.decode("utf-8", "replace").splitlines():
        t = json.loads(line)
        if t.get("_type") != "tag" or t.get("kind") not in ("class", "function", "member"):
            continue
        scope = t.get("scope", "")
        q = f"{scope}.{t['name']}" if scope else t["name"]
        kind = {"member": "method"}.get(t["kind"], t["kind"])
        if kind == "function" and t.get("scopeKind") == "class":
            kind = "method"
        out.append(f"{t['path']}\t{q}\t{kind}\t{t['line']}\t{t.get('end', t['line'])}")
    print("\n".join(out))
    print(f"ctags: {len(payload)} bytes in {elapsed:.3f} s", file=sys.stderr)


main()
