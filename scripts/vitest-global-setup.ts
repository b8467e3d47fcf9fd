import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/** Bundles the CLI once before the tests, so end-to-end tests always run the current sources. */
export default function setup(): void {
  execFileSync(process.execPath, [fileURLToPath(new URL("./bundle.mjs", import.meta.url))], { stdio: "inherit" });
}
