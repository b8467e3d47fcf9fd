/**
 * Keeps API keys and similar secrets out of session files. Redaction runs on the serialised
 * line just before it is written, so every field (tool arguments, tool output, errors) is covered.
 */

/** What replaces a secret in the file. */
export const REDACTED = "[REDACTED]";

/**
 * A key's start: after a non-word character, or after a JSON escape such as `\n` (in the
 * serialised line a key at the start of an output line follows the letter "n", so `\b` missed it).
 */
const start = String.raw`(?:(?<![A-Za-z0-9_])|(?<=\\[nrtbf]))`;
/** Shapes of well-known keys. Character classes exclude `"` and `\`, so JSON stays valid. */
const keyPatterns: RegExp[] = [
  /sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}/, // OpenAI, Anthropic
  /AIza[0-9A-Za-z_-]{30,}/, // Google
  /gh[pousr]_[A-Za-z0-9]{30,}/, // GitHub
  /github_pat_[A-Za-z0-9_]{30,}/,
  /AKIA[0-9A-Z]{16}\b/, // AWS access key id
  /xox[abprs]-[A-Za-z0-9-]{10,}/, // Slack
].map((pattern) => new RegExp(start + pattern.source, "g"));
const bearer = /\b(Bearer\s+)[A-Za-z0-9._~+/=-]{16,}/g;
/**
 * The password of a URL's user info (`postgres://user:pass@host`): a connection string carries
 * credentials under a name no rule predicts. The user name stays, so the text still says who.
 */
const urlPassword = /\b([A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s/:@"\\]*:)(?!\[REDACTED\]@)[^\s/@"\\]+(@)/g;

/** Replaces the password of every `scheme://user:password@` in `text`; nothing else changes. */
export function redactUrlPasswords(text: string): string {
  return text.replace(urlPassword, `$1${REDACTED}$2`);
}

/** Env var names whose values are secrets. */
const secretEnvName = /(?:API_KEY|APIKEY|TOKEN|SECRET|SECRET_KEY|ACCESS_KEY|PASSWORD)$/i;
/** Shorter values are too likely to occur by chance in ordinary text. */
const MIN_SECRET_LENGTH = 8;

export type RedactorOptions = {
  /** The environment whose secret-named variables (`*_API_KEY`, `*_TOKEN`, …) are redacted. */
  env?: Record<string, string | undefined>;
  /** Further secret values, e.g. a key given with `--api-key`. */
  secrets?: string[];
  /** Registries whose values (now and later) are redacted too; default the process's own. */
  registries?: readonly SecretRegistry[];
};

/**
 * Secret values that no name or shape rule would catch (a key from `--api-key`, from a custom
 * provider's `apiKeyEnv`, an OAuth token). A session is given its own (an option of the session);
 * redactors built over a registry redact what is added to it later too.
 */
export type SecretRegistry = { add(value: string | undefined): void; readonly values: ReadonlySet<string> };

export function createSecretRegistry(): SecretRegistry {
  const values = new Set<string>();
  return {
    values,
    add: (value) => {
      if (value) values.add(value);
    },
  };
}

/** Replaces secrets in a text (typically one serialised JSON line); the result stays valid JSON. */
export type Redactor = (text: string) => string;

/**
 * Keys this process holds that no name or shape rule would catch (a key from `--api-key`, or from
 * a custom provider's `apiKeyEnv`). Every redactor redacts them, including ones made before the
 * key was registered, so no session (`/new`, RPC `new_session`, a fork, a model switch) misses them.
 */
const processSecrets = createSecretRegistry();

/** Adds a secret value to the process's registry (the CLI's one session, MCP OAuth tokens). */
export function addProcessSecret(value: string | undefined): void {
  processSecrets.add(value);
}

/** The process's registry, for a session given none (the CLI). */
export function processSecretRegistry(): SecretRegistry {
  return processSecrets;
}

/**
 * Builds a redactor for the known key shapes plus the values of secret-named env vars,
 * `secrets` and the process's registered secrets. The env is read once, here; pass `process.env` explicitly.
 */
export function createRedactor(options: RedactorOptions = {}): Redactor {
  const values = new Set<string>();
  for (const [name, value] of Object.entries(options.env ?? {}))
    if (value !== undefined && secretEnvName.test(name)) values.add(value);
  for (const value of options.secrets ?? []) values.add(value);
  const registries = options.registries ?? [processSecrets];
  let literal: RegExp | undefined;
  let known = -1;
  return (text) => {
    // Secrets registered after this redactor was made (a model switch) join on the next line.
    const size = registries.reduce((sum, registry) => sum + registry.values.size, 0);
    if (known !== size) {
      known = size;
      const registered = registries.flatMap((registry) => [...registry.values]);
      const all = [...values, ...registered].filter((value) => value.length >= MIN_SECRET_LENGTH);
      literal = buildLiteralPattern(all);
    }
    let result = literal ? text.replace(literal, REDACTED) : text;
    for (const pattern of keyPatterns) result = result.replace(pattern, REDACTED);
    return redactUrlPasswords(result.replace(bearer, `$1${REDACTED}`));
  };
}

/** One alternation of the values as they appear inside JSON strings, longest first. */
function buildLiteralPattern(values: string[]): RegExp | undefined {
  if (values.length === 0) return undefined;
  const forms = new Set<string>();
  for (const value of values) {
    forms.add(value);
    forms.add(JSON.stringify(value).slice(1, -1));
  }
  const sorted = [...forms].sort((a, b) => b.length - a.length);
  return new RegExp(sorted.map((form) => form.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "g");
}
