/**
 * `$GYRE_HOME/auth.json`: the sign-in tokens of `gyre login`, readable by the user only (0600),
 * written whole to a temporary file and renamed so a crash never leaves half a file. Tokens live
 * here and nowhere else: never in sessions, logs or telemetry (docs/sign-in.md).
 */
import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";

/** GitHub Copilot: the GitHub OAuth token, and the short-lived Copilot token exchanged for it. */
export type CopilotCredentials = {
  type: "github-copilot";
  githubToken: string;
  copilotToken?: string;
  /** Milliseconds since the epoch. */
  copilotExpiresAt?: number;
  /** The chat API base the token exchange named. */
  apiUrl?: string;
  /** Model ids Copilot's /models listed at sign-in. */
  models?: string[];
};

/** ChatGPT plan (Codex): OAuth tokens and the ChatGPT account they belong to. */
export type CodexCredentials = {
  type: "openai-codex";
  accessToken: string;
  refreshToken: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
  accountId: string;
};

export type Credentials = CopilotCredentials | CodexCredentials;
export type AuthFile = Partial<{ "github-copilot": CopilotCredentials; "openai-codex": CodexCredentials }>;
export type SignInProvider = keyof AuthFile;

export const SIGN_IN_PROVIDERS: readonly SignInProvider[] = ["github-copilot", "openai-codex"];

export function isSignInProvider(name: string): name is SignInProvider {
  return (SIGN_IN_PROVIDERS as readonly string[]).includes(name);
}

export function authFilePath(gyreHome: string): string {
  return join(gyreHome, "auth.json");
}

/** The stored sign-ins; an absent file is none. A damaged file is an error naming it (never overwritten silently). */
export async function readAuthFile(gyreHome: string): Promise<AuthFile> {
  const path = authFilePath(gyreHome);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new Error(`Cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}.`);
  }
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error("not an object");
    return value as AuthFile;
  } catch {
    throw new Error(`${path} is not valid JSON; fix it, or delete it and run gyre login again.`);
  }
}

/** Stores (or with `undefined`, removes) one provider's credentials, keeping the others. */
export async function writeCredentials(
  gyreHome: string,
  provider: SignInProvider,
  credentials: Credentials | undefined,
): Promise<void> {
  const file = await readAuthFile(gyreHome);
  if (credentials === undefined) delete file[provider];
  else (file as Record<string, Credentials>)[provider] = credentials;
  const path = authFilePath(gyreHome);
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, path);
}
