/**
 * `gyre doctor`'s MCP check: every server a run in this folder would start, connected for real
 * (bounded by a short timeout) and closed again; one line per server.
 */
import { describeUnusableServer } from "../../core/mcp/mcp-config.js";
import { connectAll, loadForListing } from "../mcp/list-command.js";
import type { McpCommandIo } from "../mcp/run-mcp-command.js";
import type { DoctorCheck } from "./check-installation.js";

export async function checkMcpServers(io: Omit<McpCommandIo, "fail">, timeoutMs: number): Promise<DoctorCheck[]> {
  const full: McpCommandIo = { ...io, fail: (_message, code) => code };
  const { loaded, held } = await loadForListing(full, { trust: false, configFiles: [] });
  const checks: DoctorCheck[] = loaded.warnings.map((warning) => ({
    name: "mcp",
    status: "warn",
    detail: warning,
    fix: "Correct the MCP configuration file it names (gyre mcp list shows what is used).",
  }));
  for (const problem of loaded.unusable.map(describeUnusableServer))
    checks.push({
      name: `mcp ${problem.name}`,
      status: "fail",
      detail: problem.error ?? "its configuration cannot be used",
      fix: "Correct its entry (gyre mcp get shows it) or remove it with gyre mcp remove.",
    });
  for (const name of held)
    checks.push({
      name: `mcp ${name}`,
      status: "warn",
      detail: "in this folder's .mcp.json, which is not trusted, so it is not started",
      fix: "Run gyre in this folder and approve the project, or leave it.",
    });
  if (loaded.servers.length > 0) {
    const manager = await connectAll(full, loaded.servers, timeoutMs);
    try {
      for (const status of manager.statuses())
        checks.push(
          status.state === "connected"
            ? {
                name: `mcp ${status.name}`,
                status: "ok",
                detail: `connected, ${status.toolCount} tool(s) (${status.scope})`,
              }
            : {
                name: `mcp ${status.name}`,
                status: "fail",
                detail: `${status.state === "connecting" ? `no connection within ${timeoutMs} ms` : status.state}${status.error ? `: ${status.error}` : ""}`,
                fix: "Check the server's command or URL with gyre mcp get <name> (gyre mcp list --verbose shows its stderr), or remove it.",
              },
        );
    } finally {
      await manager.close();
    }
  }
  if (checks.length === 0) checks.push({ name: "mcp", status: "ok", detail: "no MCP servers configured" });
  return checks;
}
