/** The usage `gyre <command> --help` prints for the fleet's and the evaluation's commands (docs/fleet.md). */
const redis = "The queue is on Redis: --redis redis://host:port or GYRE_REDIS_URL; --queue <name> (default gyre).\n";

const usages: Record<string, string> = {
  worker: `Usage:
  gyre worker [--concurrency N] [--lock-ms MS] [--grace-ms MS] [--redis URL] [--queue name]
              [--allow-root DIR]... [--allow-sandbox-off] [--allow-mcp-config] [--allow-faux-script]

Runs jobs from the queue, each as a gyre child process in its own workspace; the provider keys
stay with the worker. Runs until SIGINT or SIGTERM; then running jobs get --grace-ms (default
10000) to finish, and those still running go back to the queue for another worker. A job may work in a folder (--cwd) only under
an --allow-root DIR; sandbox "off", an MCP config and a faux script need the matching --allow-…
flag (docs/fleet.md).
${redis}`,
  submit: `Usage:
  gyre submit (--cwd DIR | --git URL[@ref]) [--provider P] [--model M] [--tools list] [--max-turns N]
              [--max-cost USD] [--priority N] [--faux-script file] [--follow] "prompt"

Puts a prompt on the queue as a job and prints its id; --follow then streams its events.
${redis}`,
  jobs: `Usage:
  gyre jobs [--limit N] [--json] [--redis URL] [--queue name]

Lists the queue's jobs, newest first (default 50).
${redis}`,
  job: `Usage:
  gyre job <id> [--follow | --cancel | --session] [--redis URL] [--queue name]

One job: its state, or --follow its live events, --cancel it, --session print its session as JSONL.
${redis}`,
  eval: `Usage:
  gyre eval tasks.jsonl [--workers N] [--model provider/id]... [--build label=bin]... [--repeat k]
            [--out DIR] [--faux-script file] [--sandbox mode] [--timeout MS] [--redis URL --queue name]

Runs every task under every variant (model × build) k times as local child processes, or as jobs
for the queue's workers with --redis, and reports pass rates (95% CI), cost, tokens, turns and
harness errors.
`,
  replay: `Usage:
  gyre replay <session.jsonl> [--workspace DIR] [--tools list] [--sandbox mode] [--timeout MS]

Re-runs all of a session's model outputs on this build's tools in a fresh copy of the workspace;
exit 1 when a tool result differs.
`,
};

export function fleetUsage(name: string): string {
  return usages[name] ?? `Usage: gyre ${name}\n`;
}
