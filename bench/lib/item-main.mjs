// Lets each item script run alone (`node bench/startup.mjs --rounds 3`) as well as from bench/run.mjs.
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ensurePi, ensurePiLatest } from "./pi-install.mjs";
import { renderTable } from "./table.mjs";

/** Parses `--name value` pairs into numbers where they look like numbers. */
export function parseOptions(argv = process.argv.slice(2)) {
  const options = {};
  for (let at = 0; at < argv.length; at++) {
    const match = /^--([\w-]+)$/.exec(argv[at]);
    if (!match) continue;
    const value = argv[at + 1];
    if (value === undefined || value.startsWith("--")) options[match[1]] = true;
    else {
      options[match[1]] = Number.isNaN(Number(value)) ? value : Number(value);
      at++;
    }
  }
  return options;
}

/** True when `moduleUrl` is the script node was started with. */
export function isMain(moduleUrl) {
  try {
    return realpathSync(fileURLToPath(moduleUrl)) === realpathSync(process.argv[1] ?? "");
  } catch {
    return false;
  }
}

/** Installs both Pis if needed, runs `run({ ...options, pi, piLatest })` and prints its rows as a table. */
export async function runStandalone(run) {
  const pi = await ensurePi();
  if (!pi.ok) console.error(`note: ${pi.reason}; measuring gyre only.`);
  const piLatest = await ensurePiLatest();
  if (!piLatest.ok) console.error(`note: ${piLatest.reason}; comparing with Pi ${pi.ok ? "0.73.1" : "nothing"}.`);
  const rows = await run({
    ...parseOptions(),
    pi: pi.ok ? pi : undefined,
    piLatest: piLatest.ok ? piLatest : undefined,
    log: (line) => console.error(line),
  });
  console.log(renderTable(rows));
}
