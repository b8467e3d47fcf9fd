/**
 * The MCP conformance suite's client scenarios, part 3 of 3: token endpoint authentication,
 * pre-registration and the 2025-03-26 back-compatibility paths
 * (conformance-scenarios.ts).
 */
import { describeConformanceScenarios } from "./conformance-scenarios.js";

describeConformanceScenarios("tokens and registration", [
  "auth/token-endpoint-auth-basic",
  "auth/token-endpoint-auth-post",
  "auth/token-endpoint-auth-none",
  "auth/pre-registration",
  "auth/2025-03-26-oauth-metadata-backcompat",
  "auth/2025-03-26-oauth-endpoint-fallback",
  "auth/resource-mismatch",
]);
