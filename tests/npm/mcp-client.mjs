// Drives the mergelens MCP server with the official TypeScript SDK client
// (@modelcontextprotocol/sdk): over stdio (`mergelens mcp`) or streamable
// HTTP (`mergelens serve`, /mcp). Lists the tools, calls each one, checks
// the results and the errors for bad arguments. Exit status 0 when every
// check passed.
//   node mcp-client.mjs stdio BINARY DB
//   node mcp-client.mjs http URL        (URL of the /mcp endpoint)
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { EmptyResultSchema, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";

const [mode, a, b] = process.argv.slice(2);
const transport =
  mode === "stdio"
    ? new StdioClientTransport({ command: a, args: ["mcp", "--db", b, "--base-url", "http://digest.example/"], stderr: "inherit" })
    : new StreamableHTTPClientTransport(new URL(a));
const client = new Client({ name: "mergelens-test", version: "1.0.0" });
let failures = 0;
async function check(name, fn) {
  try {
    await fn();
    console.log(`[ OK ] ${mode} ${name}`);
  } catch (e) {
    failures++;
    console.log(`[FAIL] ${mode} ${name}: ${e.stack || e}`);
  }
}
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const call = (name, args) => client.callTool({ name, arguments: args });
function data(result) {
  assert.equal(result.isError, false, JSON.stringify(result.content));
  assert.ok(result.structuredContent, "structuredContent");
  // One copy of the result: the text block is a short summary of it.
  assert.equal(result.content.length, 1);
  assert.ok(result.content[0].text.length < 800, result.content[0].text);
  assert.ok(!result.content[0].text.trimStart().startsWith("{"), "not the JSON again");
  return result.structuredContent;
}
function toolError(result, pattern) {
  assert.equal(result.isError, true, "isError");
  assert.equal(result.content[0].type, "text");
  assert.match(result.content[0].text, pattern);
}

await client.connect(transport);
let day, pr;
await check("initialize", async () => {
  assert.equal(client.getServerVersion().name, "mergelens");
  assert.ok(client.getServerCapabilities().tools, "tools capability");
  assert.ok(client.getInstructions().includes("close_read"));
});
await check("ping", async () => assert.deepEqual(await client.ping(), {}));
await check("tools/list", async () => {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  assert.deepEqual(names, ["day", "pr", "release_notes", "repos", "search", "tag", "tags", "week"]);
  for (const t of tools) {
    assert.equal(t.inputSchema.type, "object", t.name);
    assert.equal(t.outputSchema.type, "object", t.name);
    assert.ok(t.description.length > 40, t.name);
    assert.equal(t.annotations.readOnlyHint, true, t.name);
  }
});
await check("repos (takes the common arguments)", async () => {
  const d = data(await call("repos", {}));
  assert.ok(d.repos.length >= 1);
  const named = data(await call("repos", { repo: d.repos[0].name, lang: "en" }));
  assert.equal(named.repos[0].name, d.repos[0].name);
});
await check("day (newest)", async () => {
  day = data(await call("day", {}));
  assert.match(day.date, /^\d{4}-\d{2}-\d{2}$/);
  assert.ok(day.changes.length > 0);
  assert.equal(day.counts.merged, day.page.total - day.counts.open);
  for (const c of day.changes) {
    assert.match(c.merged_at, ISO);
    assert.ok(["close_read", "selective_read", "skim", "skip"].includes(c.verdict), c.verdict);
    assert.ok(c.importance >= 1 && c.importance <= 10);
    assert.ok(c.author.length > 0);
    assert.ok(c.headline.length > 0);
    assert.match(c.page_url ?? "", /^http:\/\/(digest\.example|127\.0\.0\.1:\d+)\//);
  }
  // Most worth reading first: skips after the rest.
  const order = day.changes.map((c) => ["close_read", "selective_read", "skim", "skip"].indexOf(c.verdict));
  assert.deepEqual(order, [...order].sort((x, y) => x - y));
});
await check("day (a date, en)", async () => {
  const d = data(await call("day", { date: day.date, lang: "en" }));
  assert.equal(d.date, day.date);
  assert.equal(d.lang, "en");
  assert.equal(d.page.total, day.page.total);
});
await check("pr (zh and en)", async () => {
  const first = day.changes.find((c) => c.number !== null);
  const zh = data(await call("pr", { ref: String(first.number) }));
  assert.equal(zh.number, first.number);
  assert.equal(zh.guide.lang, "zh");
  assert.ok(zh.guide.headline.length > 0 && zh.guide.verdict_text.length > 0);
  pr = data(await call("pr", { ref: `#${first.number}`, lang: "en" }));
  assert.equal(pr.guide.lang, "en");
  assert.match(pr.merged_at, ISO);
  assert.equal(pr.sha, first.sha);
  for (const f of pr.guide.focus) assert.ok(f.path.length > 0);
});
let tag;
await check("tags", async () => {
  const d = data(await call("tags", { lang: "en" }));
  assert.ok(d.tags.length > 0);
  tag = d.tags[0];
  assert.ok(tag.count >= 1);
});
await check("tag", async () => {
  const d = data(await call("tag", { tags: tag.tag, limit: 5 }));
  assert.equal(d.count, tag.count);
  assert.ok(d.changes.length <= 5 && d.changes.length > 0);
  for (const c of d.changes) assert.ok(c.tags.includes(tag.tag));
  const close = data(await call("tag", { tags: tag.tag, verdict: "close_read" }));
  for (const c of close.changes) assert.equal(c.verdict, "close_read");
});
await check("search", async () => {
  const word = pr.title.split(/[^A-Za-z]+/).find((w) => w.length >= 5);
  const d = data(await call("search", { q: word, lang: "en" }));
  assert.ok(d.count >= 1, `no result for ${word}`);
  assert.ok(d.results.some((r) => r.sha === pr.sha), `${word} did not find ${pr.sha}`);
});
await check("week (newest, en)", async () => {
  const w = data(await call("week", { lang: "en", fields: "sha", limit: 200 }));
  assert.match(w.week, /^\d{4}-W\d{2}$/);
  // The newest day's merges are in the newest week.
  for (const c of day.changes) assert.ok(w.entries.some((e) => e.sha === c.sha), c.sha);
  assert.equal(w.merged, w.entries.length);
  const again = data(await call("week", { week: w.week }));
  assert.equal(again.week, w.week);
  assert.equal(again.page.total, w.entries.length);
});
await check("release_notes", async () => {
  const n = data(await call("release_notes", { since: day.date, highlights: 3, lang: "en" }));
  assert.ok(n.highlights.length >= 1 && n.highlights.length <= 3);
  for (const h of n.highlights) assert.ok(day.changes.some((c) => c.sha === h.sha), h.sha);
});
await check("bad arguments are tool errors", async () => {
  toolError(await call("week", { week: "2026-38" }), /must match/);
  toolError(await call("release_notes", {}), /missing required argument "since"/);
  toolError(await call("release_notes", { since: "soon" }), /since/);
  toolError(await call("release_notes", { since: "2026-09-01", repo: "all" }), /one repository/);
  toolError(await call("pr", {}), /missing required argument "ref"/);
  toolError(await call("day", { date: 20260910 }), /must be a string/);
  toolError(await call("day", { date: "yesterday" }), /must match/);
  toolError(await call("day", { date: "2026-13-45" }), /2026-13-45|date/);
  toolError(await call("day", { bogus: 1 }), /unknown argument "bogus"/);
  toolError(await call("search", { q: "x", limit: 500 }), /at most 50/);
  toolError(await call("tag", { tags: "x", verdict: "maybe" }), /must be one of/);
  toolError(await call("pr", { ref: "999999" }), /999999/);
  toolError(await call("day", { repo: "nobody/nothing" }), /no repository named/);
});
await check("unknown tool is -32602", async () => {
  await assert.rejects(call("nope", {}), (e) => e instanceof McpError && e.code === ErrorCode.InvalidParams);
});
await check("unknown method is -32601", async () => {
  await assert.rejects(client.request({ method: "resources/list" }, EmptyResultSchema),
    (e) => e instanceof McpError && e.code === ErrorCode.MethodNotFound);
});
if (mode === "http") {
  const post = (body, headers = {}) =>
    fetch(a, { method: "POST", body: JSON.stringify(body), headers: {
      "content-type": "application/json", accept: "application/json, text/event-stream", ...headers } });
  await check("HTTP: a notification is 202 without a body", async () => {
    const r = await post({ jsonrpc: "2.0", method: "notifications/initialized" });
    assert.equal(r.status, 202);
    assert.equal(await r.text(), "");
  });
  await check("HTTP: a request is 200 JSON", async () => {
    const r = await post({ jsonrpc: "2.0", id: 7, method: "ping" });
    assert.equal(r.status, 200);
    assert.match(r.headers.get("content-type"), /^application\/json/);
    assert.deepEqual(await r.json(), { jsonrpc: "2.0", id: 7, result: {} });
  });
  await check("HTTP: foreign Origin 403, GET 405, Accept 406, bad JSON 400, bad version 400", async () => {
    assert.equal((await post({ jsonrpc: "2.0", id: 1, method: "ping" }, { origin: "http://evil.example" })).status, 403);
    assert.equal((await post({ jsonrpc: "2.0", id: 1, method: "ping" }, { origin: "http://localhost:3000" })).status, 200);
    assert.equal((await fetch(a, { headers: { accept: "text/event-stream" } })).status, 405);
    assert.equal((await post({ jsonrpc: "2.0", id: 1, method: "ping" }, { accept: "application/json" })).status, 406);
    const bad = await fetch(a, { method: "POST", body: "{oops", headers: {
      "content-type": "application/json", accept: "application/json, text/event-stream" } });
    assert.equal(bad.status, 400);
    assert.equal((await bad.json()).error.code, -32700);
    assert.equal((await post({ jsonrpc: "2.0", id: 1, method: "ping" }, { "mcp-protocol-version": "1999-01-01" })).status, 400);
  });
}
await client.close();
console.log(failures ? `${failures} failed` : "all passed");
process.exit(failures ? 1 : 0);
