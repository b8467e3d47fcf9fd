/** The environment passed to commands: the harness's own, minus anything that looks like a secret. */

/** Names that look like credentials (API keys, tokens, passwords…). */
export const SECRET_ENV_NAME = /(API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|PRIVATE_?KEY)/i;

/** Provider keys the harness itself uses; listed explicitly in case the pattern ever changes. */
const KNOWN_SECRETS = new Set([
  "OPENAI_API_KEY",
  "ANTHROPIC_API_KEY",
  "GEMINI_API_KEY",
  "GOOGLE_API_KEY",
  "OPENROUTER_API_KEY",
]);

/** A copy of `env` without secret-looking variables; never mutates its argument. */
export function createSafeEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const safe: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || KNOWN_SECRETS.has(name) || SECRET_ENV_NAME.test(name)) continue;
    safe[name] = value;
  }
  return safe;
}
