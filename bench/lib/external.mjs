// The items measured by other scripts in bench/ (each owned by its author and runnable alone):
// the runner spawns them and reads their printed tables. A parser that finds nothing still yields
// a row that points at the script, and the raw output goes into bench/results/latest.md.

const num = (text) => (text === undefined || text === "-" ? undefined : Number.parseFloat(text));
const one = (value) => (value === undefined || Number.isNaN(value) ? undefined : { median: value });

/** Rows from bench/agent-loop.mjs: per-turn time of the Agent in-process, and its flatness. */
function parseAgentLoop(output) {
  // "gyre  36.2 µs  50.9 µs  1.41×  50.6 µs  98.9 µs  96.5 ms": first 100, last 100, last/first, all turns, …
  const read = (name) => {
    const line = output.split("\n").find((text) => text.startsWith(`${name} `));
    const values = line?.match(/[\d.]+(?=\s*(µs|×|ms))/g);
    return values && { last: num(values[1]), flat: num(values[2]), all: num(values[3]) };
  };
  const gyre = read("gyre");
  const pi = read("pi-agent-core");
  if (!gyre) return [];
  const turns = /(\d[\d,]*) tool-call turns/.exec(output)?.[1] ?? "1,000";
  return [
    {
      item: `loop in-process: per turn, ${turns} turns`,
      unit: "µs",
      gyre: one(gyre.all),
      pi: one(pi?.all),
      note: "@gyre/agent vs pi-agent-core Agent, instant model; medians from bench/agent-loop.mjs",
    },
    {
      item: "loop in-process: last 100 ÷ first 100 turns",
      unit: "x",
      gyre: one(gyre.flat),
      pi: one(pi?.flat),
      note: "1.0 = flat as history grows",
    },
  ];
}

/** Rows from bench/sse-throughput.mjs: its markdown table of MB/s and import ms. */
function parseSse(output) {
  const row = (prefix) => {
    const line = output.split("\n").find((text) => text.startsWith(`| ${prefix}`));
    const cells = line?.split("|").map((cell) => cell.trim());
    return cells && { rate: num(cells[2]), importMs: num(cells[3]) };
  };
  const gyre = row("@gyre/ai");
  const pi = row("@mariozechner/pi-ai");
  if (!gyre) return [];
  return [
    {
      item: "providers: SSE parse throughput",
      unit: "MB/s",
      gyre: one(gyre.rate),
      pi: one(pi?.rate),
      note: "higher is better; openai-completions, recorded stream ×N",
    },
    { item: "providers: import @gyre/ai vs pi-ai", unit: "ms", gyre: one(gyre.importMs), pi: one(pi?.importMs) },
  ];
}

/** Rows from bench/checkpoints.mjs: the baseline is `git add -A && git commit` in a plain repository. */
function parseCheckpoints(output) {
  const files = /checkpoints: (\d+) files/.exec(output)?.[1] ?? "10000";
  const git = /^git add -A && git commit \(median\)\s+([\d.]+) ms/m.exec(output);
  const kinds = [
    ["full scan (bash)", /^snapshot, full scan \(median\)\s+([\d.]+) ms/m],
    ["paths named by write/edit", /^snapshot, paths write\/edit named \(median\)\s+([\d.]+) ms/m],
  ];
  return kinds.flatMap(([kind, pattern]) => {
    const gyre = pattern.exec(output);
    if (!gyre) return [];
    return [
      {
        item: `checkpoints: snapshot, ${kind}, ${files} files, small change`,
        unit: "ms",
        gyre: one(num(gyre[1])),
        pi: one(num(git?.[1])),
        versus: "git add -A && git commit",
        note: "targets ≤ 50 ms and ≤ 1.2x the plain git baseline (Pi has no checkpoints)",
      },
    ];
  });
}

/** Rows from bench/hooks.mjs: an empty hook's cost per tool call; the baseline is the same path with no hook. */
function parseHooks(output) {
  const base = /^no hook \(median ms\/call\)\s+([\d.]+)/m.exec(output);
  const rows = [
    ["one empty PreToolUse hook", /^empty PreToolUse \(median ms\/call\)\s+([\d.]+)/m],
    ["empty PreToolUse + PostToolUse hooks", /^empty PreToolUse \+ PostToolUse \(median ms\/call\)\s+([\d.]+)/m],
  ];
  return rows.flatMap(([kind, pattern]) => {
    const gyre = pattern.exec(output);
    if (!gyre) return [];
    return [
      {
        item: `hooks: ${kind}, per tool call`,
        unit: "ms",
        gyre: one(num(gyre[1])),
        pi: one(num(base?.[1])),
        versus: "no hook",
        note: "target ≤ 5 ms over no hook (Pi has no shell hooks)",
      },
    ];
  });
}

/** Rows from bench/lsp.mjs: an edit with diagnostics from a warm TypeScript server; the baseline is the same edit with none. */
function parseLsp(output) {
  const base = /^edit, no server \(p50 ms\/edit\)\s+([\d.]+)/m.exec(output);
  const gyre = /^edit \+ diagnostics \(p50 ms\/edit\)\s+([\d.]+)/m.exec(output);
  if (!gyre) return [];
  return [
    {
      item: "lsp: edit + diagnostics (warm typescript-language-server), p50 per edit",
      unit: "ms",
      gyre: one(num(gyre[1])),
      pi: one(num(base?.[1])),
      versus: "no server",
      note: "target ≤ 300 ms added (Pi has no language-server diagnostics)",
    },
  ];
}

/** Rows from bench/tools.mjs: baselines are bare `bash -c` and raw `rg`, not Pi. */
function parseTools(output) {
  const rows = [];
  const bash = /^bash .*?\(median ms\/call\)\s+([\d.]+)\s+([\d.]+)/m.exec(output);
  if (bash)
    rows.push({
      item: "tools: bash tool, per call",
      unit: "ms",
      gyre: one(num(bash[1])),
      pi: one(num(bash[2])),
      versus: "bash -c",
      note: "target overhead < 15 ms (Pi's ~48 ms per issue #4)",
    });
  const grep = /^grep (.*?) \(median ms\)\s+([\d.]+)\s+([\d.]+)/m.exec(output);
  if (grep)
    rows.push({
      item: `tools: grep, ${grep[1]}`,
      unit: "ms",
      gyre: one(num(grep[2])),
      pi: one(num(grep[3])),
      versus: "rg",
      note: "target ≤ 1.3x raw rg",
    });
  const read = /^read (.*?) \(median ms\)\s+([\d.]+)\s+([\d.]+).*?\+(\d+) MiB RSS/m.exec(output);
  if (read)
    rows.push({
      item: `tools: read ${read[1]}`,
      unit: "ms",
      gyre: one(num(read[2])),
      pi: one(num(read[3])),
      versus: "head -n 2000",
      note: `RSS growth +${read[4]} MiB; the tool also counts the file's lines for its notice`,
    });
  else if (rows.length > 0)
    rows.push({ item: "tools: read of a 100 MB file", note: "not measured by bench/tools.mjs yet" });
  return rows;
}

/** Rows from bench/sandbox.mjs: per-call medians against bare `bash -c`. */
function parseSandbox(output) {
  const value = (label) => num(new RegExp(`^${label}\\s+([\\d.]+)`, "m").exec(output)?.[1]);
  const bare = value("bare bash -c");
  const perCall = value("bwrap per call \\(Codex-style\\)");
  const sandboxed = value("gyre bash tool, sandboxed");
  const host = value("gyre bash tool, host");
  if (bare === undefined || sandboxed === undefined) return [];
  return [
    {
      item: "sandbox: bash tool in the session sandbox, per call",
      unit: "ms",
      gyre: one(sandboxed),
      pi: one(bare),
      versus: "bash -c",
      note: `target ≤ 10 ms over bare bash; the unsandboxed tool takes ${host} ms`,
    },
    {
      item: "sandbox: one bwrap start per call (Codex-style)",
      unit: "ms",
      gyre: one(perCall),
      pi: one(bare),
      versus: "bash -c",
    },
  ];
}

/** Rows from bench/sessions.mjs: one per size and shape, resume time and peak RSS. */
function parseSessions(output) {
  const rows = [];
  const pattern = /^(\d+)\s+(.+?)\s{2,}([\d.]+ MB)\s+(\d+)\s+(\d+|-)\s+\S+\s+(\d+) MiB\s+(?:(\d+) MiB|-)/gm;
  for (const match of output.matchAll(pattern)) {
    rows.push({
      item: `sessions: resume ${Number(match[1]).toLocaleString("en")} entries, ${match[2]}`,
      unit: "ms",
      gyre: one(num(match[4])),
      pi: one(num(match[5])),
      gyreRssMb: num(match[6]),
      piRssMb: num(match[7]),
      note: `${match[3]}; target ≥ 5x faster, < half the memory`,
    });
  }
  return rows;
}

/** Rows from bench/mcp.mjs: start-up with 0/1/5 servers next to the SDK's own connect, and per-call overhead. */
function parseMcp(output) {
  const rows = [];
  for (const match of output.matchAll(/^gyre -p with (\d+) servers\s+([\d.]+)(?:\s+([\d.]+))?/gm)) {
    rows.push({
      item: `mcp: -p start-up, ${match[1]} server${match[1] === "1" ? "" : "s"}`,
      unit: "ms",
      gyre: one(num(match[2])),
      pi: one(num(match[3])),
      ...(match[3] ? { versus: "node + SDK connect" } : {}),
      note:
        match[1] === "0"
          ? "no server: the SDK is never loaded"
          : "server-memory over stdio; headless runs wait for every server",
    });
  }
  const call = /^mcp tool call, (.*?) \(median ms\/call of \d+\)\s+([\d.]+)\s+([\d.]+)/m.exec(output);
  if (call)
    rows.push({
      item: `mcp: tool call, ${call[1]}`,
      unit: "ms",
      gyre: one(num(call[2])),
      pi: one(num(call[3])),
      versus: "SDK Client.callTool",
    });
  const search = /^tool definitions per turn, 100 MCP tools \(estimated tokens\)\s+(\d+)\s+(\d+)\s+\((.*)\)/m.exec(
    output,
  );
  if (search)
    rows.push({
      item: "mcp: tool definitions per turn, 100 tools",
      unit: "tokens",
      gyre: one(num(search[1])),
      pi: one(num(search[2])),
      versus: "all schemas sent",
      note: `with tool_search; ${search[3]}`,
    });
  return rows;
}

/** Rows from a script that prints bench/lib/table.mjs's own table (bench/tui.mjs does). */
function parseTable(output) {
  const rows = [];
  for (const line of output.split("\n")) {
    const cells = line.split("|").map((cell) => cell.trim());
    if (cells.length !== 9 || cells[1] === "item" || cells[1].startsWith("---")) continue;
    const [, item, gyre, pi, , spread, memory, note] = cells;
    const value = (text) => /^(-?[\d.]+)\s*(.*)$/.exec(text);
    const [gyreRange, piRange] = spread.split(" / ").map((range) => range.split("–").map(num));
    const side = (text, range) => {
      const match = value(text);
      if (!match) return undefined;
      const [min, max] = range ?? [];
      return Number.isFinite(min) && Number.isFinite(max) ? { median: num(match[1]), min, max } : one(num(match[1]));
    };
    const [gyreRss, piRss] = memory.split(" / ").map((text) => num(value(text)?.[1]));
    rows.push({
      item,
      unit: value(gyre)?.[2] ?? "",
      gyre: side(gyre, gyreRange),
      pi: side(pi, piRange),
      gyreRssMb: gyreRss,
      piRssMb: piRss,
      note,
    });
  }
  return rows;
}

/**
 * The external items: name → { script, args, parse }. `args` keep each within a minute or two
 * here; run a script alone with its own defaults for more samples.
 */
export const EXTERNAL_ITEMS = {
  sessions: { script: "bench/sessions.mjs", args: [], parse: parseSessions },
  tools: { script: "bench/tools.mjs", args: [], parse: parseTools },
  sandbox: { script: "bench/sandbox.mjs", args: [], parse: parseSandbox },
  providers: { script: "bench/sse-throughput.mjs", args: [], parse: parseSse, needs: "packages/ai/dist/index.js" },
  "loop-in-process": { script: "bench/agent-loop.mjs", args: [], parse: parseAgentLoop },
  tui: { script: "bench/tui.mjs", args: [], parse: parseTable },
  checkpoints: { script: "bench/checkpoints.mjs", args: [], parse: parseCheckpoints },
  hooks: { script: "bench/hooks.mjs", args: [], parse: parseHooks },
  lsp: { script: "bench/lsp.mjs", args: [], parse: parseLsp },
  mcp: { script: "bench/mcp.mjs", args: ["--rounds", "5", "--calls", "200"], parse: parseMcp },
  acp: { script: "bench/acp.mjs", args: ["--rounds", "10"], parse: parseTable },
  fleet: { script: "bench/fleet.mjs", args: [], parse: parseTable },
};
