import { assertFixturesPresent } from "./vitest-global-setup.js";

// The unit layer has no global setup (it bundles nothing); the fixture check costs four stat calls per file.
assertFixturesPresent(new URL("../", import.meta.url));
