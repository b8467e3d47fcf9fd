/** `gyre --help`. Its own module so the bin can print it without loading the CLI (start-up). */
import { subcommandHelp } from "./commands/index.js";

export const helpText = `gyre — a terminal coding agent

Usage:
  gyre [options] [prompt...]          interactive (prompt, if given, is sent first)
  gyre -p "prompt"                    print mode: run, print the final answer, exit
  gyre --mode json -p "prompt"        one JSON line per event on stdout
  gyre --mode rpc                     JSONL commands on stdin, responses and events on stdout
  gyre <command> [args...]            one of the commands below (gyre <command> --help for its usage)
  echo text | gyre "prompt"           piped stdin is appended to the prompt (implies -p); with a prompt
                                      argument a pipe silent for 1 s is ignored (docs/cli.md)

Commands:
${subcommandHelp()}
Model:
  --provider <name>          anthropic, openai, openai-responses, google, ollama, llamacpp, faux, or models.json
  --model, -m <id>           model id (unknown ids are accepted with default limits)
  --base-url <url>           point the provider at any compatible server
  --api-key <key>            key (else ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY); visible in ps
  --api-key-file <path>      read the key from a file (first line), kept out of ps
  --thinking <level>         off, low, medium, high
  --models <list>            models Ctrl+P (TUI) and cycle_model (RPC) go through: ids, provider/id, globs (claude-*),
                             each optionally with :level (gpt-5:high)
  --faux-script <file.json>  scripted responses for the faux provider
  --list-models              print the configured providers and models

Tools and context:
  --tools <list>             comma list of read,write,edit,bash,ls,grep,find,todo,task,web_fetch
                             (default read,write,edit,bash,todo,task)
  --no-tools                 no tools
  --allow-path <dir>         let file tools reach outside the workspace (repeatable)
  --sandbox <mode>           bash under bubblewrap: workspace-write (default), read-only, off
  --allow-network            network inside the sandbox (default off)
  --web-search               let the model search the web with the provider's own tool
                             (Anthropic, OpenAI Responses, Gemini; setting "webSearch")
  --approval <who>           calls needing more than the sandbox or matching an "ask" rule:
                             ask (interactive default), deny (print/json default), allow
  --plan                     plan mode: read-only sandbox, write and edit withheld
  --system-prompt <text>     replace the system prompt
  --append-system-prompt <text>
  @file                      inline a file (or image) into the first message
  -e, --extension <path>     load an extension (repeatable); --no-extensions skips the discovered
                             ones ($GYRE_HOME/extensions, .gyre/extensions) but still loads -e
  --mcp-config <file>        MCP servers from an .mcp.json file (repeatable); --no-mcp disables all
  --trust                    trust this project folder (its settings and extensions) for headless runs
  --claude-compat            also read CLAUDE.md, .claude/ commands, agents, skills, hooks and rules
  -w, --worktree [name]      run in a new git worktree on branch gyre/<name> (kept; gyre worktree list)

Budgets:
  --max-turns <n>            stop after n model calls
  --max-cost <usd>           stop when the run has cost this much

Sessions:
  -c, --continue             resume the newest session of this folder
  -r, --resume               pick a session to resume
  --session <path|id>        open a session file or id prefix
  --fork                     with -c or --session: continue in a new file copying that session
  --no-session               keep nothing on disk
  --rewind <entryId>         with --session/-c: undo back to before that user message, print JSON, exit;
                             --rewind list prints the entries it can go back to
  --restore code|conversation|both   what --rewind restores (default both); --force overwrites conflicts

Other:
  --output-schema <file>     print/json: the answer must be JSON matching this JSON Schema (asked to fix once, else exit 1)
  --verbose                  progress on stderr in print mode
  -v, --version              print the version
  -h, --help                 this help

Fleet and evaluation: the queue is on Redis (--redis URL or GYRE_REDIS_URL); gyre eval runs local
child processes unless given --redis.

Exit codes: 0 success, 1 the run failed (provider error, aborted, budget), 2 bad usage.
Files: $GYRE_HOME (default ~/.gyre) holds settings.json, models.json, sessions/, extensions/, checkpoints/.
`;
