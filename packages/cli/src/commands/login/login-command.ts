/**
 * `gyre login <provider>` and `gyre logout <provider>`: sign in with a plan instead of an API key
 * (GitHub Copilot by device code, a ChatGPT plan through the browser) and forget a sign-in. The
 * tokens go to $GYRE_HOME/auth.json (0600) only; nothing secret is printed (docs/sign-in.md).
 * Exit 0 when signed in or out, 1 when the sign-in failed, 2 for bad usage.
 */
import {
  authFilePath,
  isSignInProvider,
  readAuthFile,
  SIGN_IN_PROVIDERS,
  writeCredentials,
} from "../../core/auth/auth-store.js";
import { signIn } from "../../core/auth/sign-in.js";
import type { CommandIo } from "../index.js";
import { parseCommandWords } from "../usage-error.js";

export const loginUsage = `Usage:
  gyre login <provider>
  gyre logout <provider>

Signs in with a subscription instead of an API key; the tokens are kept in $GYRE_HOME/auth.json
(readable by you only) and refreshed before they expire.

  github-copilot   GitHub Copilot: enter the code shown at github.com/login/device
  openai-codex     ChatGPT Plus/Pro/Team: sign in in the browser (a callback on localhost:1455)

Then run gyre --provider github-copilot (or openai-codex); with no API key set, gyre uses the
first provider you signed in to. Claude Pro/Max sign-in is not offered: Anthropic's terms do not
allow it in third-party tools; use ANTHROPIC_API_KEY.
`;

function unknownProvider(command: string, provider: string | undefined): string {
  if (provider !== undefined && /^(anthropic|claude)/i.test(provider))
    return "gyre: Claude Pro/Max sign-in is not offered (Anthropic's terms do not allow it in third-party tools); set ANTHROPIC_API_KEY instead.\n";
  const what = provider === undefined ? "needs a provider" : `does not know "${provider}"`;
  return `gyre: ${command} ${what}; use ${SIGN_IN_PROVIDERS.join(" or ")}.\n`;
}

export async function runLoginCommand(args: string[], io: CommandIo): Promise<number> {
  const parsed = parseCommandWords("login", args, {});
  if (!parsed.ok) {
    io.stderr.write(`gyre: ${parsed.error}\n`);
    return 2;
  }
  const [provider, extra] = parsed.value.positionals;
  if (provider === undefined || !isSignInProvider(provider) || extra !== undefined) {
    io.stderr.write(extra !== undefined ? "gyre: login takes one provider.\n" : unknownProvider("login", provider));
    return 2;
  }
  try {
    const done = await signIn(provider, {
      gyreHome: io.gyreHome,
      env: io.env,
      onCode: ({ userCode, verificationUri }) =>
        io.stderr.write(`Open ${verificationUri} and enter the code ${userCode}\nWaiting for GitHub…\n`),
      onUrl: (url) =>
        io.stderr.write(`Open this page to sign in with your ChatGPT account:\n  ${url}\nWaiting for the browser…\n`),
    });
    io.stderr.write(`${done}\n`);
  } catch (error) {
    io.stderr.write(`gyre: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  io.stderr.write(`Tokens are in ${authFilePath(io.gyreHome)}; run gyre --provider ${provider} to use them.\n`);
  return 0;
}

export async function runLogoutCommand(args: string[], io: CommandIo): Promise<number> {
  const parsed = parseCommandWords("logout", args, {});
  if (!parsed.ok) {
    io.stderr.write(`gyre: ${parsed.error}\n`);
    return 2;
  }
  const [provider] = parsed.value.positionals;
  if (provider === undefined || !isSignInProvider(provider)) {
    io.stderr.write(unknownProvider("logout", provider));
    return 2;
  }
  try {
    const had = (await readAuthFile(io.gyreHome))[provider] !== undefined;
    if (had) await writeCredentials(io.gyreHome, provider, undefined);
    io.stderr.write(had ? `Signed out of ${provider}.\n` : `Not signed in to ${provider}; nothing to do.\n`);
    return 0;
  } catch (error) {
    io.stderr.write(`gyre: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
