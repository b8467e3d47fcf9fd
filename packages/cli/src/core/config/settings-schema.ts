/**
 * The one description of settings.json (`$GYRE_HOME/settings.json`, `.gyre/settings.json`): the
 * loader checks files against it and the `Settings` type is derived from it.
 */
import { THINKING_LEVELS } from "@gyre/ai";
import { type Static, type TLiteral, type TUnion, Type } from "@sinclair/typebox";
import { BUILT_IN_TOOL_NAMES } from "../tools/tool-names.js";
import { permissionSettingsSchema, sandboxSettingsSchema } from "./safety-settings.js";

/** Node's timers hold at most 2^31−1 ms (about 24.8 days); a larger value fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;
const MAX_RETRIES = 100;
const timerNote = `a Node timer waits at most ${MAX_TIMER_MS} ms (about 24 days)`;

function oneOf<const T extends string>(values: readonly T[]): TUnion<TLiteral<T>[]> {
  return Type.Union(values.map((value) => Type.Literal(value)));
}

const positiveWhole = () => Type.Optional(Type.Integer({ exclusiveMinimum: 0 }));
const timerMs = () => Type.Optional(Type.Number({ minimum: 1, maximum: MAX_TIMER_MS, note: timerNote }));
const delayMs = () => Type.Optional(Type.Number({ minimum: 0, maximum: MAX_TIMER_MS, note: timerNote }));
const tokenCount = () => Type.Optional(Type.Number({ minimum: 0 }));
const byteCap = () =>
  Type.Optional(
    Type.Integer({
      exclusiveMinimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      expected: "a whole number of bytes above 0",
    }),
  );

/** One language server of the `lsp` setting; closed, since a typo (`extension`) would leave it unused. */
const lspServerSchema = Type.Object(
  {
    command: Type.String({ minLength: 1 }),
    args: Type.Optional(Type.Array(Type.String())),
    /** File name endings it serves, with the dot (".ts"). */
    extensions: Type.Array(
      Type.String({ pattern: "^\\.[^/]+$", expected: "a file ending with its dot, such as .ts" }),
      {
        minItems: 1,
      },
    ),
    /** Files or folders marking a project root ("tsconfig.json"); the nearest one up to the workspace wins. */
    rootMarkers: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    initializationOptions: Type.Optional(Type.Unknown()),
    /** How long a tool result waits for the server's diagnostics (default 5000). */
    timeoutMs: timerMs(),
  },
  { additionalProperties: false },
);

/** How the TUI tells the user a long run ended. */
export const NOTIFY_CHANNELS = ["bell", "osc9", "osc777", "off"] as const;
export type NotifyChannel = (typeof NOTIFY_CHANNELS)[number];

/** settings.json. Objects without `additionalProperties: false` accept unknown keys with a warning. */
export const settingsSchema = Type.Object({
  defaultProvider: Type.Optional(Type.String()),
  defaultModel: Type.Optional(Type.String()),
  thinking: Type.Optional(oneOf(THINKING_LEVELS)),
  tools: Type.Optional(Type.Array(oneOf(BUILT_IN_TOOL_NAMES))),
  maxTurns: positiveWhole(),
  maxCost: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
  maxTotalTokens: positiveWhole(),
  maxWallTimeMs: timerMs(),
  retry: Type.Optional(
    Type.Object({
      maxRetries: Type.Optional(Type.Number({ minimum: 0, maximum: MAX_RETRIES })),
      baseDelayMs: delayMs(),
      maxDelayMs: delayMs(),
    }),
  ),
  compaction: Type.Optional(
    Type.Object({
      enabled: Type.Optional(Type.Boolean()),
      reserveTokens: tokenCount(),
      keepRecentTokens: tokenCount(),
    }),
  ),
  allowedPaths: Type.Optional(Type.Array(Type.String())),
  bashTimeoutMs: timerMs(),
  /** A tool call with larger arguments (JSON bytes) is not run nor kept; also write's content limit (default 1048576). */
  maxToolArgumentBytes: byteCap(),
  /** A model stream that sends nothing for this long fails (default 120000). */
  idleTimeoutMs: timerMs(),
  /** What bash commands may touch (docs/design/safety.md). */
  sandbox: Type.Optional(sandboxSettingsSchema),
  /** allow / ask / deny rules for tool calls (docs/design/safety.md). */
  permissions: Type.Optional(permissionSettingsSchema),
  /** How long headless runs wait for MCP servers to connect (default 10000). */
  mcpStartupTimeoutMs: timerMs(),
  /** Let the model search the web with the provider's server-side tool (as `--web-search`). */
  webSearch: Type.Optional(Type.Boolean()),
  /** Size caps of rewind's workspace snapshots, in bytes (docs/design/rewind.md); closed: a typo would keep a default cap. */
  checkpoints: Type.Optional(
    Type.Object(
      { maxFileBytes: byteCap(), maxSnapshotBytes: byteCap(), maxRepositoryBytes: byteCap() },
      { additionalProperties: false },
    ),
  ),
  /** The TUI's finish notification: a bell, an OSC 9 or OSC 777 desktop notification, or none. */
  notify: Type.Optional(oneOf(NOTIFY_CHANNELS)),
  /** Only runs at least this long notify when they end (default 10000). */
  notifyAfterMs: timerMs(),
  /** MCP sampling (a server asking gyre's model): `ask` (default: the TUI or RPC client decides; print denies), `allow`, `deny`. */
  mcpSampling: Type.Optional(oneOf(["ask", "allow", "deny"])),
  /** Package sources `gyre install` (without arguments) installs: npm:…, git:…, or paths. */
  packages: Type.Optional(Type.Array(Type.String())),
  /** Interactive colours: `dark`, `light` or a file `$GYRE_HOME/themes/<name>.json` (default dark). */
  theme: Type.Optional(
    Type.String({
      pattern: "^[A-Za-z0-9_-]{1,64}$",
      expected: "dark, light or the name of a file in $GYRE_HOME/themes (letters, digits, - and _)",
    }),
  ),
  /** Read a Claude Code setup too: CLAUDE.md, `.claude/` commands, agents, skills, hooks, rules (docs/claude-compat.md). */
  claudeCompat: Type.Optional(Type.Boolean()),
  /** Shell commands run on lifecycle events, Claude Code's format (docs/hooks.md); checked when loaded. */
  hooks: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  /** OpenTelemetry export (docs/usage-and-telemetry.md); off unless an endpoint is set here or in OTEL_EXPORTER_OTLP_ENDPOINT. */
  telemetry: Type.Optional(
    Type.Object(
      {
        otlpEndpoint: Type.Optional(Type.String()),
        serviceName: Type.Optional(Type.String()),
        /** Export prompts, answers and tool output too (default false: sizes and names only). */
        logContent: Type.Optional(Type.Boolean()),
        enabled: Type.Optional(Type.Boolean()),
      },
      { additionalProperties: false },
    ),
  ),
  /** Language servers asked for diagnostics after write and edit, by name (docs/lsp.md). */
  lsp: Type.Optional(Type.Record(Type.String({ minLength: 1 }), lspServerSchema)),
  /** Who decides calls that need more than the sandbox gives, when `--approval` is not given. */
  approval: Type.Optional(oneOf(["ask", "deny", "allow"])),
});

/** User and project settings (`$GYRE_HOME/settings.json`, `.gyre/settings.json`; project wins). */
export type Settings = Static<typeof settingsSchema>;
