/**
 * The supervisor that runs inside the long-lived sandbox: one small Node process that starts each
 * command as `bash -c` in its own process group, with the cwd and environment of that call, and
 * talks to gyre over its stdin/stdout in JSON lines. A string, not a module, because it is passed
 * to `node -e` inside bwrap and must not depend on gyre's bundle layout.
 *
 * gyre → supervisor: {t:"run",id,shell,command,cwd,env} | {t:"kill",id,graceMs} | {t:"release",id}
 * supervisor → gyre: {t:"ready"} | {t:"out",id,d:base64} | {t:"eof",id} | {t:"exit",id,code,signal}
 *                    | {t:"killed",id,signal,survivors} | {t:"error",id,message}
 * When its stdin ends it kills every group and exits; the PID namespace takes the rest with it.
 *
 * Its one argument, when not empty, is the path of gyre's filtering proxy socket: the supervisor
 * then listens on 127.0.0.1:<random port> of the sandbox's own (otherwise empty) network namespace
 * and pipes each connection to that socket, and reports the port in "ready".
 */
export const SUPERVISOR_SOURCE = String.raw`"use strict";
const cp = require("node:child_process");
const fs = require("node:fs");
const net = require("node:net");
const calls = new Map();
let paused = false;
const streamsOf = (call) => [call.child.stdout, call.child.stderr].filter(Boolean);
function send(message) {
  if (process.stdout.write(JSON.stringify(message) + "\n") || paused) return;
  paused = true;
  for (const call of calls.values()) for (const s of streamsOf(call)) s.pause();
  process.stdout.once("drain", () => {
    paused = false;
    for (const call of calls.values()) for (const s of streamsOf(call)) s.resume();
  });
}
function groupAlive(pgid) {
  try { process.kill(-pgid, 0); } catch { return false; }
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat;
    try { stat = fs.readFileSync("/proc/" + entry + "/stat", "utf8"); } catch { continue; }
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) === pgid && fields[0] !== "Z" && fields[0] !== "X") return true;
  }
  return false;
}
async function waitGone(pgid, ms) {
  const end = Date.now() + ms;
  let delay = 5;
  while (groupAlive(pgid)) {
    if (Date.now() >= end) return false;
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 50);
  }
  return true;
}
const signalGroup = (pgid, s) => { try { process.kill(-pgid, s); return true; } catch { return false; } };
async function terminate(id, graceMs) {
  const call = calls.get(id);
  const pgid = call && call.child.pid;
  if (!pgid || !signalGroup(pgid, "SIGTERM") || (await waitGone(pgid, graceMs))) {
    return send({ t: "killed", id, signal: "SIGTERM", survivors: false });
  }
  signalGroup(pgid, "SIGKILL");
  send({ t: "killed", id, signal: "SIGKILL", survivors: !(await waitGone(pgid, 2000)) });
}
function run(m) {
  let child;
  try {
    child = cp.spawn(m.shell, ["-c", m.command], { cwd: m.cwd, env: m.env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  } catch (error) {
    return send({ t: "error", id: m.id, message: String(error && error.message) });
  }
  const call = { child };
  calls.set(m.id, call);
  child.once("error", (error) => send({ t: "error", id: m.id, message: error.message }));
  let open = streamsOf(call).length;
  for (const s of streamsOf(call)) {
    s.once("end", () => {
      if (--open === 0) send({ t: "eof", id: m.id });
    });
    s.on("data", (d) => send({ t: "out", id: m.id, d: d.toString("base64") }));
    if (paused) s.pause();
  }
  child.once("exit", (code, signal) => send({ t: "exit", id: m.id, code, signal }));
}
function handle(m) {
  if (m.t === "run") run(m);
  else if (m.t === "kill") void terminate(m.id, m.graceMs);
  else if (m.t === "release") {
    const call = calls.get(m.id);
    calls.delete(m.id);
    if (call) for (const s of streamsOf(call)) s.destroy();
  }
}
let buffer = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  for (let at = buffer.indexOf("\n"); at !== -1; at = buffer.indexOf("\n")) {
    const line = buffer.slice(0, at);
    buffer = buffer.slice(at + 1);
    if (line) handle(JSON.parse(line));
  }
});
process.stdin.on("end", () => {
  for (const call of calls.values()) signalGroup(call.child.pid, "SIGKILL");
  process.exit(0);
});
function startBridge(socketPath, done) {
  if (!socketPath) return done(undefined);
  const server = net.createServer((client) => {
    const upstream = net.connect(socketPath);
    const close = () => { client.destroy(); upstream.destroy(); };
    client.on("error", close);
    upstream.on("error", close);
    client.on("close", close);
    upstream.on("close", close);
    client.pipe(upstream).pipe(client);
  });
  server.on("error", () => done(undefined));
  server.listen(0, "127.0.0.1", () => done(server.address().port));
}
startBridge(process.argv[1], (proxyPort) => send({ t: "ready", proxyPort }));
`;
