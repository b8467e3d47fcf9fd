/**
 * The environment passed to commands. Bash gets an explicit allowlist of harmless variables
 * (PATH, HOME, locale, terminal, tool homes) rather than gyre's environment minus a guessed list of
 * secrets: DATABASE_URL, GH_PAT or *_AUTH carry credentials under names no pattern predicts.
 */

/** Names that look like credentials (API keys, tokens, passwords…). */
export const SECRET_ENV_NAME = /(API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|PRIVATE_?KEY|AUTH|PAT$|_URL$|DSN$)/i;

/** Variables passed by exact name. */
const ALLOWED_NAMES = new Set([
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "TERM",
  "COLORTERM",
  "TZ",
  "EDITOR",
  "VISUAL",
  "PAGER",
  "NO_COLOR",
  "FORCE_COLOR",
  "CI",
  "GOPATH",
  "GOROOT",
  "NVM_DIR",
  "VIRTUAL_ENV",
  "CONDA_PREFIX",
  "PYTHONPATH",
  "NODE_PATH",
]);

/** Variables passed by shape: locale categories and tool/XDG directories. */
const ALLOWED_PATTERNS = [/^LC_[A-Z]+$/, /^XDG_(CONFIG|CACHE|DATA|STATE)_HOME$/, /^[A-Z][A-Z0-9]*_HOME$/];

/** Whether `name` may be passed to a command: allowlisted and not secret-looking. */
export function isAllowedEnvName(name: string): boolean {
  if (SECRET_ENV_NAME.test(name)) return false;
  return ALLOWED_NAMES.has(name) || ALLOWED_PATTERNS.some((pattern) => pattern.test(name));
}

/** The variables of `env` named in `names` (the user's `sandbox.passEnv`), present ones only. */
export function pickEnv(env: NodeJS.ProcessEnv, names: readonly string[]): NodeJS.ProcessEnv {
  const picked: NodeJS.ProcessEnv = {};
  for (const name of names) if (env[name] !== undefined) picked[name] = env[name];
  return picked;
}

/**
 * A new environment holding only the allowlisted variables of `env` (plus `extra`, which the
 * caller vouches for); never mutates its argument.
 */
export function createSafeEnv(env: NodeJS.ProcessEnv, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const safe: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && isAllowedEnvName(name)) safe[name] = value;
  }
  for (const [name, value] of Object.entries(extra)) if (value !== undefined) safe[name] = value;
  return safe;
}
