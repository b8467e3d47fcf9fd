/**
 * The MCP conformance suite's client scenarios, part 1 of 3: the protocol basics and the
 * authorization server metadata discovery (conformance-scenarios.ts).
 */
import { describeConformanceScenarios } from "./conformance-scenarios.js";

describeConformanceScenarios("basics and metadata", [
  "initialize",
  "tools_call",
  "elicitation-sep1034-client-defaults",
  "sse-retry",
  "auth/metadata-default",
  "auth/metadata-var1",
  "auth/metadata-var2",
  "auth/metadata-var3",
]);
