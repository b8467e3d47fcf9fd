/**
 * A child process for the session e2e tests, bundled by the test with esbuild.
 * `append <sessionsDir> <cwd>`: appends messages forever, printing "flushed <count> <path>" after
 * every 20 (each durable by then). `hold <path>`: opens a session, prints "locked", stays alive.
 */
import { SessionManager } from "../../src/core/session/session-manager.js";

const [mode, first, second] = process.argv.slice(2);
const filler = "y".repeat(32_000); // large lines keep a write in flight when the kill lands

if (mode === "append" && first && second) {
  const session = SessionManager.create({ sessionsDir: first, cwd: second });
  for (let index = 0; ; index++) {
    session.appendMessage({ role: "user", content: `entry ${index} ${filler}`, timestamp: Date.now() });
    if ((index + 1) % 20 === 0) {
      await session.flush();
      process.stdout.write(`flushed ${index + 1} ${session.path}\n`);
    }
  }
} else if (mode === "hold" && first) {
  await SessionManager.open(first);
  process.stdout.write("locked\n");
  setInterval(() => undefined, 60_000);
} else {
  process.stderr.write("usage: session-child append <sessionsDir> <cwd> | hold <path>\n");
  process.exit(2);
}
