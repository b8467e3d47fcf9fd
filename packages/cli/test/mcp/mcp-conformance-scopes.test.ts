/**
 * The MCP conformance suite's client scenarios, part 2 of 3: client ID metadata documents and
 * scopes (conformance-scenarios.ts).
 */
import { describeConformanceScenarios } from "./conformance-scenarios.js";

describeConformanceScenarios("scopes", [
  "auth/basic-cimd",
  "auth/scope-from-www-authenticate",
  "auth/scope-from-scopes-supported",
  "auth/scope-omitted-when-undefined",
  "auth/scope-step-up",
  "auth/scope-retry-limit",
  "auth/offline-access-scope",
  "auth/offline-access-not-supported",
]);
