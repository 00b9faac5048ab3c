// MCP results within a model's budget (issue 35), on a busy store: drives
// `mergelens mcp` over stdio with the official TypeScript SDK client and
// counts each tools/call result's tokens with a real tokenizer (js-tiktoken:
// cl100k_base and o200k_base, the larger count kept). Exit status 0 when
// every check passed.
//   node mcp-budget.mjs BINARY DB REPO
// Prints one line per call: tool, arguments, tokens, items returned/total.
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Tiktoken } from "js-tiktoken/lite";
import cl100k from "js-tiktoken/ranks/cl100k_base";
import o200k from "js-tiktoken/ranks/o200k_base";

const [binary, db, repo] = process.argv.slice(2);
const BUDGET = 8000; // tokens of one result, whole (content and structuredContent)
const encoders = [new Tiktoken(cl100k), new Tiktoken(o200k)];
const tokens = (text) => Math.max(...encoders.map((e) => e.encode(text).length));

const client = new Client({ name: "mergelens-budget", version: "1.0.0" });
await client.connect(new StdioClientTransport({
  command: binary, args: ["mcp", "--db", db, "--base-url", "https://lens.example/ml"], stderr: "inherit" }));
let failures = 0;
async function check(name, fn) {
  try {
    await fn();
    console.log(`[ OK ] ${name}`);
  } catch (e) {
    failures++;
    console.log(`[FAIL] ${name}: ${e.stack || e}`);
  }
}
const sizes = [];
// One call: its result within the budget, sent once (a short text beside
// the structured content), paged lists saying what they left out.
async function call(name, args) {
  const r = await client.callTool({ name, arguments: args });
  assert.equal(r.isError, false, `${name} ${JSON.stringify(args)}: ${JSON.stringify(r.content)}`);
  const n = tokens(JSON.stringify(r));
  const d = r.structuredContent;
  const page = d.page;
  sizes.push({ name, args, tokens: n, page });
  console.log(`  ${name} ${JSON.stringify(args).slice(0, 80)}: ${n} tokens` +
    (page ? `, items ${page.offset + 1}-${page.offset + page.returned} of ${page.total}` : ""));
  assert.ok(n <= BUDGET, `${name}: ${n} tokens`);
  assert.equal(r.content.length, 1);
  const text = r.content[0].text;
  assert.ok(text.length < 800, `${name}: the text is a summary, not a second copy (${text.length})`);
  assert.ok(!text.trimStart().startsWith("{"), `${name}: the text is not the JSON again`);
  if (page) {
    assert.equal(page.remaining, page.total - page.offset - page.returned);
    if (page.next_cursor) {
      assert.ok(text.includes(page.next_cursor), `${name}: the text says how to get the next page`);
      assert.match(text, /more items? not shown/);
    } else {
      assert.equal(page.remaining, 0);
    }
  }
  return d;
}
const sha = (c) => c.sha;

let day, week;
await check("day (newest, both languages): a page within the budget", async () => {
  day = await call("day", {});
  assert.ok(day.counts.merged > 50, `a busy day: ${day.counts.merged}`);
  assert.ok(day.page.returned >= 10 && day.page.next_cursor, "a page, not everything");
  await call("day", { lang: "en" });
});
await check("day: the cursor walks every change once, pinned to the day", async () => {
  const seen = day.changes.map(sha);
  let cursor = day.page.next_cursor;
  for (let i = 0; cursor && i < 50; i++) {
    const next = await call("day", { cursor });
    assert.equal(next.date, day.date, "the cursor keeps the day it started on");
    seen.push(...next.changes.map(sha), ...next.open.map(sha));
    cursor = next.page.next_cursor;
  }
  assert.equal(cursor, null);
  assert.equal(new Set(seen).size, seen.length, "no change twice");
  assert.equal(seen.length, day.counts.merged + day.counts.open);
});
await check("day: a large limit stays within the budget; fields ask for less", async () => {
  const big = await call("day", { limit: 200 });
  assert.ok(big.page.returned < 200 && big.page.next_cursor, "the budget cuts a large page");
  const slim = await call("day", { limit: 200, fields: "headline,verdict,url", lang: "en" });
  assert.ok(slim.page.returned > big.page.returned, "fewer fields, more items");
  for (const c of slim.changes) {
    assert.deepEqual(Object.keys(c).sort().filter((k) => !["number", "sha"].includes(k)),
      ["headline", "url", "verdict"]);
  }
  const r = await client.callTool({ name: "day", arguments: { fields: "nonsense" } });
  assert.equal(r.isError, true);
  assert.match(r.content[0].text, /headline/);
});
await check("day: a cursor with another date is refused, a foreign one too", async () => {
  let r = await client.callTool({ name: "day", arguments: { cursor: day.page.next_cursor, date: "2001-01-01" } });
  assert.equal(r.isError, true);
  assert.match(r.content[0].text, /cursor was made for date/);
  r = await client.callTool({ name: "week", arguments: { cursor: day.page.next_cursor } });
  assert.equal(r.isError, true);
  assert.match(r.content[0].text, /pages the tool day/);
});
await check("week: newest, a tag, and what changed in the scheduler", async () => {
  week = await call("week", {});
  assert.ok(week.merged >= 300, `a busy week: ${week.merged}`);
  assert.ok(week.page.next_cursor);
  const en = await call("week", { lang: "en", fields: "ref,headline,verdict,tags,url" });
  assert.ok(en.page.returned > week.page.returned);
  const sched = await call("week", { tags: "scheduler", lang: "en" });
  assert.ok(sched.merged > 0 && sched.merged < week.merged, `${sched.merged}`);
  for (const e of sched.entries) assert.ok(e.tags.includes("scheduler"), e.tags);
  const close = await call("week", { week: week.week, min: "selective_read" });
  for (const e of close.entries) assert.ok(["close_read", "selective_read"].includes(e.verdict));
});
await check("release_notes over a month, every page within the budget", async () => {
  const since = week.since.slice(0, 10);
  const first = await call("release_notes", { since: "2000-01-01", lang: "en" });
  assert.ok(first.page.total > 300, `${first.page.total}`);
  let cursor = first.page.next_cursor;
  for (let i = 0; cursor && i < 3; i++) cursor = (await call("release_notes", { cursor })).page.next_cursor;
  await call("release_notes", { since });
});
await check("tag, tags, search, repos, pr", async () => {
  const tags = await call("tags", {});
  const busiest = tags.tags[0].tag;
  const t = await call("tag", { tags: busiest });
  assert.ok(t.count > t.page.returned);
  await call("tag", { tags: busiest, cursor: t.page.next_cursor });
  await call("search", { q: "cache" });
  await call("search", { q: "kernel", limit: 50, lang: "en" });
  const repos = await call("repos", { repo, lang: "en" });
  assert.deepEqual(repos.repos.map((r) => r.name), [repo]);
  const pr = await call("pr", { ref: String(day.changes[0].number), lang: "en" });
  assert.ok(pr.guide);
  const slim = await call("pr", { ref: String(day.changes[0].number), fields: "headline,verdict" });
  assert.ok(!("guide" in slim) && slim.headline);
});
await client.close();
const worst = sizes.reduce((a, b) => (a.tokens > b.tokens ? a : b));
console.log(`${sizes.length} results, largest ${worst.tokens} tokens (${worst.name} ${JSON.stringify(worst.args).slice(0, 60)})`);
console.log(failures ? `${failures} failed` : "all passed");
process.exit(failures ? 1 : 0);
