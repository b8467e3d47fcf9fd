/**
 * Spans and metrics from a session's events, exported over OTLP/HTTP (JSON) with the
 * OpenTelemetry SDK. Imported only when telemetry is on (start-telemetry.ts). The span tree:
 * one `invoke_agent` span per run, under it a `chat <model>` span per model call and an
 * `execute_tool <name>` span per tool call; a subagent's run nests under its `task` call's span.
 * Attributes follow the GenAI semantic conventions; prompts, answers and tool output are added
 * only with `telemetry.logContent`, and then with secrets redacted (docs/usage-and-telemetry.md).
 */

import type { AgentEvent, AgentMessage } from "@gyre/agent";
import {
  type Attributes,
  type Context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-http";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { MeterProvider, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from "@opentelemetry/semantic-conventions";
import {
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_ID,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_SYSTEM,
  ATTR_GEN_AI_TOKEN_TYPE,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
} from "@opentelemetry/semantic-conventions/incubating";
import { version } from "../../version.js";
import { createRedactor } from "../session/redact-secrets.js";
import type { SessionEvent } from "../session-events.js";
import type { TelemetryConfig } from "./telemetry-config.js";

/** How long one export may take: an unreachable collector delays exit by about this much, no more. */
const EXPORT_TIMEOUT_MS = 3000;

type Instruments = {
  tokens: ReturnType<ReturnType<MeterProvider["getMeter"]>["createHistogram"]>;
  duration: ReturnType<ReturnType<MeterProvider["getMeter"]>["createHistogram"]>;
  cost: ReturnType<ReturnType<MeterProvider["getMeter"]>["createCounter"]>;
};

/** The exporter pair and the event-to-span translation of one session. */
export function createOtelTelemetry(config: TelemetryConfig, env: NodeJS.ProcessEnv) {
  const resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: config.serviceName, [ATTR_SERVICE_VERSION]: version });
  const tracerProvider = new TracerProvider({
    resource,
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter({ url: config.tracesUrl, timeoutMillis: EXPORT_TIMEOUT_MS }),
      }),
    ],
  });
  const reader = new PeriodicExportingMetricReader({
    exporter: new OTLPMetricExporter({ url: config.metricsUrl, timeoutMillis: EXPORT_TIMEOUT_MS }),
    exportIntervalMillis: 60_000,
  });
  const meterProvider = new MeterProvider({ resource, readers: [reader] });
  const meter = meterProvider.getMeter("gyre", version);
  const instruments: Instruments = {
    tokens: meter.createHistogram("gen_ai.client.token.usage", {
      unit: "{token}",
      description: "Tokens per model call",
    }),
    duration: meter.createHistogram("gen_ai.client.operation.duration", {
      unit: "s",
      description: "Model call latency",
    }),
    cost: meter.createCounter("gyre.cost", { unit: "USD", description: "What model calls cost" }),
  };
  const tracer = tracerProvider.getTracer("gyre", version);
  const redact = createRedactor({ env });
  const content = config.logContent ? (text: string) => redact(text) : undefined;
  const root = parentContext(config.traceparent);
  const main = new RunTracer({ tracer, instruments, content, agent: "main", parent: () => root });
  /** Subagent runs by their task call id; their tool spans are found through `toolSpans`. */
  const subagents = new Map<string, RunTracer>();
  const toolSpans = new Map<string, Span>();
  main.toolSpans = toolSpans;
  return {
    observe(event: SessionEvent): void {
      if (event.type === "session_changed") main.conversationId = event.sessionId;
      if (event.type === "subagent_event") {
        let run = subagents.get(event.parentToolCallId);
        if (!run) {
          const parentSpan = () => toolSpans.get(event.parentToolCallId);
          run = new RunTracer({
            tracer,
            instruments,
            content,
            agent: event.agent,
            parent: () => {
              const span = parentSpan();
              return span ? trace.setSpan(root, span) : root;
            },
          });
          run.toolSpans = toolSpans;
          subagents.set(event.parentToolCallId, run);
        }
        run.observe(event.event);
        if (event.event.type === "agent_end") subagents.delete(event.parentToolCallId);
        return;
      }
      main.observe(event as AgentEvent);
    },
    async shutdown(): Promise<void> {
      main.endAll();
      for (const run of subagents.values()) run.endAll();
      // Each flush is bounded: an unreachable collector must not keep gyre from exiting.
      await Promise.allSettled([
        tracerProvider.shutdown(),
        meterProvider.shutdown({ timeoutMillis: EXPORT_TIMEOUT_MS }),
      ]);
    },
  };
}

/** The context a W3C `traceparent` names, so this run's spans join the caller's trace. */
function parentContext(traceparent: string | undefined): Context {
  if (!traceparent) return ROOT_CONTEXT;
  const [, traceId, spanId, flags] = traceparent.split("-");
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId: traceId as string,
    spanId: spanId as string,
    traceFlags: Number.parseInt(flags as string, 16),
    isRemote: true,
  });
}

type RunTracerOptions = {
  tracer: ReturnType<TracerProvider["getTracer"]>;
  instruments: Instruments;
  content: ((text: string) => string) | undefined;
  agent: string;
  parent(): Context;
};

/** One agent's runs: the spans open while its events arrive. */
class RunTracer {
  conversationId: string | undefined;
  toolSpans = new Map<string, Span>();
  private run: Span | undefined;
  private runContext: Context = ROOT_CONTEXT;
  private call: { span: Span; started: number } | undefined;
  private readonly tools = new Set<string>();

  constructor(private readonly options: RunTracerOptions) {}

  observe(event: AgentEvent): void {
    switch (event.type) {
      case "agent_start":
        this.startRun();
        return;
      case "turn_start":
        this.startCall();
        return;
      case "message_end":
        if (event.message.role === "assistant") this.endCall(event.message);
        else if (event.message.role === "user" && this.options.content && this.run)
          this.run.setAttribute("gyre.prompt", this.options.content(textOf(event.message)));
        return;
      case "tool_execution_start":
        this.startTool(event.toolCallId, event.toolName, event.args);
        return;
      case "tool_execution_end":
        this.endTool(event.toolCallId, event.isError, event.result.content);
        return;
      case "agent_end":
        this.endRun(event.reason);
        return;
      case "retry":
        this.call?.span.addEvent("retry", { attempt: event.attempt, reason: event.reason });
        return;
      case "budget_reached":
        this.run?.addEvent("budget_reached", { budget: event.budget, limit: event.limit, used: event.used });
        return;
      case "turn_end":
      case "message_start":
      case "message_update":
      case "tool_execution_update":
        return;
      default: {
        const unknown: never = event;
        void unknown;
      }
    }
  }

  private startRun(): void {
    this.endAll();
    const attributes: Attributes = {
      [ATTR_GEN_AI_OPERATION_NAME]: "invoke_agent",
      [ATTR_GEN_AI_AGENT_NAME]: this.options.agent,
    };
    if (this.conversationId) attributes[ATTR_GEN_AI_CONVERSATION_ID] = this.conversationId;
    this.run = this.options.tracer.startSpan(
      `invoke_agent ${this.options.agent}`,
      { kind: SpanKind.INTERNAL, attributes },
      this.options.parent(),
    );
    this.runContext = trace.setSpan(this.options.parent(), this.run);
  }

  private startCall(): void {
    if (!this.run) this.startRun();
    this.call?.span.end();
    const span = this.options.tracer.startSpan(
      "chat",
      { kind: SpanKind.CLIENT, attributes: { [ATTR_GEN_AI_OPERATION_NAME]: "chat" } },
      this.runContext,
    );
    this.call = { span, started: performance.now() };
  }

  private endCall(message: Extract<AgentMessage, { role: "assistant" }>): void {
    const call = this.call;
    this.call = undefined;
    if (!call) return;
    const { span } = call;
    const { usage } = message;
    span.updateName(`chat ${message.model}`);
    const attributes: Attributes = {
      [ATTR_GEN_AI_SYSTEM]: message.provider,
      [ATTR_GEN_AI_PROVIDER_NAME]: message.provider,
      [ATTR_GEN_AI_REQUEST_MODEL]: message.model,
      [ATTR_GEN_AI_RESPONSE_MODEL]: message.model,
      [ATTR_GEN_AI_RESPONSE_FINISH_REASONS]: [message.stopReason],
      [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: usage.input + usage.cacheRead + usage.cacheWrite,
      [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: usage.output,
      "gen_ai.usage.cache_read.input_tokens": usage.cacheRead,
      "gen_ai.usage.cache_creation.input_tokens": usage.cacheWrite,
      "gyre.cost_usd": usage.cost.total,
    };
    if (message.responseId) attributes[ATTR_GEN_AI_RESPONSE_ID] = message.responseId;
    if (this.options.content) attributes["gyre.completion"] = this.options.content(textOf(message));
    span.setAttributes(attributes);
    if (message.stopReason === "error")
      span.setStatus({ code: SpanStatusCode.ERROR, message: message.errorMessage ?? "error" });
    span.end();
    const metric = {
      [ATTR_GEN_AI_OPERATION_NAME]: "chat",
      [ATTR_GEN_AI_PROVIDER_NAME]: message.provider,
      [ATTR_GEN_AI_REQUEST_MODEL]: message.model,
    };
    const { tokens, duration, cost } = this.options.instruments;
    tokens.record(usage.input + usage.cacheRead + usage.cacheWrite, { ...metric, [ATTR_GEN_AI_TOKEN_TYPE]: "input" });
    tokens.record(usage.output, { ...metric, [ATTR_GEN_AI_TOKEN_TYPE]: "output" });
    duration.record((performance.now() - call.started) / 1000, metric);
    cost.add(usage.cost.total, metric);
  }

  private startTool(toolCallId: string, toolName: string, args: Record<string, unknown>): void {
    if (!this.run) this.startRun();
    const attributes: Attributes = {
      [ATTR_GEN_AI_OPERATION_NAME]: "execute_tool",
      [ATTR_GEN_AI_TOOL_NAME]: toolName,
      [ATTR_GEN_AI_TOOL_CALL_ID]: toolCallId,
    };
    if (this.options.content) attributes[ATTR_GEN_AI_TOOL_CALL_ARGUMENTS] = this.options.content(JSON.stringify(args));
    const span = this.options.tracer.startSpan(
      `execute_tool ${toolName}`,
      { kind: SpanKind.INTERNAL, attributes },
      this.runContext,
    );
    this.toolSpans.set(toolCallId, span);
    this.tools.add(toolCallId);
  }

  private endTool(toolCallId: string, isError: boolean, output: unknown): void {
    const span = this.toolSpans.get(toolCallId);
    if (!span) return;
    if (this.options.content)
      span.setAttribute(ATTR_GEN_AI_TOOL_CALL_RESULT, this.options.content(JSON.stringify(output)));
    if (isError) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
    this.toolSpans.delete(toolCallId);
    this.tools.delete(toolCallId);
  }

  private endRun(reason: string | undefined): void {
    if (!this.run) return;
    if (reason) this.run.setAttribute("gyre.end_reason", reason);
    if (reason === "error") this.run.setStatus({ code: SpanStatusCode.ERROR });
    this.endAll();
  }

  /** Ends whatever is open (a run cut short by exit still exports what it did). */
  endAll(): void {
    this.call?.span.end();
    this.call = undefined;
    for (const id of this.tools) {
      this.toolSpans.get(id)?.end();
      this.toolSpans.delete(id);
    }
    this.tools.clear();
    this.run?.end();
    this.run = undefined;
  }
}

function textOf(message: AgentMessage): string {
  if (message.role === "user")
    return typeof message.content === "string"
      ? message.content
      : message.content.map((part) => (part.type === "text" ? part.text : "")).join("");
  if (message.role === "assistant")
    return message.content.map((part) => (part.type === "text" ? part.text : "")).join("");
  return "";
}
