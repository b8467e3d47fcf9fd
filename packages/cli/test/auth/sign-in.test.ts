import { spawn } from "node:child_process";
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "../helpers/redis-server.js";
import { cliEnv, createWorkspace, gyreBin, runCli } from "../helpers/run-cli.js";
import { startGitHubServer, startOpenAiServer } from "./auth-servers.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const codexFixture = fileURLToPath(
  new URL(
    "../../../ai/test/fixtures/providers/openai-responses/openai-codex-step4-text-after-tools.jsonl",
    import.meta.url,
  ),
);

async function sessionText(home: string): Promise<string> {
  const root = join(home, "sessions");
  const texts: string[] = [];
  for (const dir of await readdir(root).catch(() => [] as string[]))
    for (const name of await readdir(join(root, dir))) texts.push(await readFile(join(root, dir, name), "utf8"));
  return texts.join("\n");
}

describe("gyre login github-copilot", () => {
  it("signs in by device code (pending, slow_down), stores 0600 tokens and the model list, chats with Copilot's headers, refreshes, and says to sign in again once revoked", async () => {
    const github = await startGitHubServer({ slowDownInterval: 0.3 });
    closers.push(github.close);
    const { cwd, home } = await createWorkspace();
    const env = cliEnv(home, {
      GYRE_COPILOT_AUTH_URL: github.url,
      GYRE_COPILOT_TOKEN_URL: `${github.url}/copilot_internal/v2/token`,
    });
    const login = await runCli(["login", "github-copilot"], { cwd, env });
    expect(login.code).toBe(0);
    expect(login.stderr).toContain("Open https://github.com/login/device and enter the code ABCD-1234");
    expect(login.stderr).toContain("Signed in to GitHub Copilot (2 models: gpt-4.1, claude-sonnet-4.5)");
    expect(github.polls()).toBe(3);
    const polls = github.seen.filter((request) => request.path === "/login/oauth/access_token");
    // After slow_down the next poll waits the new interval (300 ms), not the old 50 ms.
    expect((polls[2]?.at ?? 0) - (polls[1]?.at ?? 0)).toBeGreaterThanOrEqual(290);
    const authFile = join(home, "auth.json");
    expect((await stat(authFile)).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(await readFile(authFile, "utf8"));
    expect(stored["github-copilot"]).toMatchObject({
      githubToken: "gho_githubtoken1234567890abcdefABCDEF12",
      models: ["gpt-4.1", "claude-sonnet-4.5"],
    });
    expect(login.stdout + login.stderr).not.toContain("gho_");
    const doctor = await runCli(["doctor", "--json"], { cwd, env });
    const signInCheck = (JSON.parse(doctor.stdout) as { checks: { name: string; detail: string }[] }).checks.find(
      (check) => check.name === "sign-in",
    );
    expect(signInCheck?.detail).toBe("signed in to github-copilot");
    expect(doctor.stdout).not.toMatch(/gho_|tid=copilot/);

    // No API key at all: the signed-in provider is used, with the headers Copilot requires.
    const run = await runCli(["-p", "hi"], { cwd, env });
    expect(run.stdout).toContain("hello from copilot");
    const chat = github.seen.find((request) => request.path === "/api/chat/completions");
    expect(chat?.headers).toMatchObject({
      authorization: "Bearer tid=copilot-1;exp=1",
      "copilot-integration-id": "vscode-chat",
      "editor-version": "vscode/1.99.3",
      "x-initiator": "user",
      "openai-intent": "conversation-edits",
    });
    const session = await sessionText(home);
    expect(session).toContain("hello from copilot");
    expect(session).not.toMatch(/tid=copilot|gho_/);

    // A Copilot token within a minute of expiry is exchanged again before the call.
    github.state.copilotTtlSeconds = 30;
    const stale = JSON.parse(await readFile(authFile, "utf8"));
    stale["github-copilot"].copilotExpiresAt = Date.now() + 30_000;
    await import("node:fs/promises").then((fs) => fs.writeFile(authFile, JSON.stringify(stale)));
    const again = await runCli(["-p", "--provider", "github-copilot", "hi"], { cwd, env });
    expect(again.stdout).toContain("hello from copilot");
    expect(github.state.exchanges).toBe(2);
    expect(JSON.parse(await readFile(authFile, "utf8"))["github-copilot"].copilotToken).toBe("tid=copilot-2;exp=1");

    github.state.revoked = true;
    const revoked = await runCli(["-p", "--provider", "github-copilot", "hi"], { cwd, env });
    expect(revoked.code).not.toBe(0);
    expect(revoked.stderr).toContain("run gyre login github-copilot to sign in again");

    const logout = await runCli(["logout", "github-copilot"], { cwd, env });
    expect(logout.stderr).toContain("Signed out of github-copilot.");
    expect(JSON.parse(await readFile(authFile, "utf8"))).toEqual({});
    const after = await runCli(["-p", "--provider", "github-copilot", "hi"], { cwd, env });
    expect(after.stderr).toContain("Not signed in to github-copilot; run gyre login github-copilot first.");
  }, 60_000);
});

/** Runs `gyre login openai-codex` and plays the browser: opens the printed page and follows its redirect to the callback. */
async function loginCodexInBrowser(env: NodeJS.ProcessEnv, cwd: string, tamper?: (callback: URL) => void) {
  const child = spawn(process.execPath, [gyreBin, "login", "openai-codex"], {
    cwd,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  const page = await new Promise<string>((resolve, reject) => {
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      const url = /\n {2}(http\S+)\n/.exec(stderr)?.[1];
      if (url) resolve(url);
    });
    child.on("close", () => reject(new Error(`login ended early: ${stderr}`)));
  });
  const redirect = await fetch(page, { redirect: "manual" });
  const callback = new URL(redirect.headers.get("location") ?? "");
  expect(callback.hostname).toBe("localhost");
  callback.hostname = "127.0.0.1";
  tamper?.(callback);
  const landed = await fetch(callback);
  const code = await exited;
  return { code, stderr, landed: { status: landed.status, text: await landed.text() }, page: new URL(page) };
}

describe("gyre login openai-codex", () => {
  it("signs in with PKCE through a local callback, calls the Codex endpoint as the ChatGPT account, refreshes, and says to sign in again once revoked", async () => {
    const openai = await startOpenAiServer({ fixture: codexFixture });
    closers.push(openai.close);
    const { cwd, home } = await createWorkspace();
    const env = cliEnv(home, {
      GYRE_CODEX_AUTH_URL: openai.url,
      GYRE_CODEX_API_URL: `${openai.url}/codex`,
      GYRE_CODEX_CALLBACK_PORT: String(await freePort()),
    });
    // A callback whose state was not issued by this login is refused.
    const forged = await loginCodexInBrowser(env, cwd, (callback) => callback.searchParams.set("state", "forged"));
    expect(forged.code).toBe(1);
    expect(forged.landed.status).toBe(400);
    expect(forged.stderr).toContain(
      "The sign-in callback carried a different state; run gyre login openai-codex again.",
    );

    const login = await loginCodexInBrowser(env, cwd);
    expect(login.code).toBe(0);
    expect(login.landed.text).toContain("Signed in to gyre");
    expect(login.page.searchParams.get("client_id")).toBe("app_EMoamEEZ73f0CkXaXp7hrann");
    expect(login.page.searchParams.get("scope")).toBe("openid profile email offline_access");
    expect(login.stderr).toContain("Signed in to ChatGPT (provider openai-codex).");
    const authFile = join(home, "auth.json");
    expect((await stat(authFile)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(authFile, "utf8"))["openai-codex"]).toMatchObject({
      accessToken: "access-1",
      refreshToken: "refresh-access-1",
      accountId: "acct-42",
    });

    const run = await runCli(["-p", "--provider", "openai-codex", "what is it?"], { cwd, env });
    expect(run.stdout).toContain("The final result is **570**.");
    const call = openai.seen.find((request) => request.path === "/codex/responses");
    expect(call?.headers).toMatchObject({
      authorization: "Bearer access-1",
      "chatgpt-account-id": "acct-42",
      originator: "codex_cli_rs",
    });
    const body = JSON.parse(call?.body ?? "{}");
    expect(body).toMatchObject({ store: false, stream: true });
    expect(typeof body.instructions).toBe("string");
    expect(await sessionText(home)).not.toMatch(/access-1|refresh-access/);

    // Within a minute of expiry: refreshed first, the new tokens stored.
    const stored = JSON.parse(await readFile(authFile, "utf8"));
    stored["openai-codex"].expiresAt = Date.now() + 10_000;
    await import("node:fs/promises").then((fs) => fs.writeFile(authFile, JSON.stringify(stored), { mode: 0o600 }));
    await runCli(["-p", "--provider", "openai-codex", "again"], { cwd, env });
    expect(openai.state.refreshes).toBe(1);
    expect(openai.seen.filter((request) => request.path === "/codex/responses").at(-1)?.headers.authorization).toBe(
      "Bearer access-2",
    );

    openai.state.revoked = true;
    const expired = JSON.parse(await readFile(authFile, "utf8"));
    expired["openai-codex"].expiresAt = Date.now();
    await import("node:fs/promises").then((fs) => fs.writeFile(authFile, JSON.stringify(expired), { mode: 0o600 }));
    const revoked = await runCli(["-p", "--provider", "openai-codex", "again"], { cwd, env });
    expect(revoked.code).not.toBe(0);
    expect(revoked.stderr).toContain("run gyre login openai-codex to sign in again");
  }, 60_000);

  it("does not offer Claude sign-in, and a first run with no key names the variables and gyre login", async () => {
    const { cwd, home } = await createWorkspace();
    const env = cliEnv(home);
    const claude = await runCli(["login", "anthropic"], { cwd, env });
    expect(claude.code).toBe(2);
    expect(claude.stderr).toContain("Claude Pro/Max sign-in is not offered");
    const first = await runCli(["-p", "hi"], { cwd, env });
    expect(first.stderr).toContain(
      "set ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY, pass --provider (and --model), or sign in with a plan: gyre login github-copilot or gyre login openai-codex.",
    );
  });
});
