import { isSignInProvider, SIGN_IN_PROVIDERS } from "../../../core/auth/auth-store.js";
import type { SlashCommand } from "./types.js";

/** /login <provider>: signs in with a plan from the TUI, as `gyre login` does (docs/sign-in.md). */
export const loginCommand: SlashCommand = {
  name: "login",
  description: "Sign in with a plan instead of an API key (github-copilot, openai-codex)",
  argumentHint: "<github-copilot|openai-codex>",
  run: async (args, context) => {
    let provider = args.trim();
    if (provider === "") {
      const picked = await context.select(
        "Sign in with",
        SIGN_IN_PROVIDERS.map((name) => ({
          value: name,
          label: name === "github-copilot" ? "GitHub Copilot" : "ChatGPT plan (openai-codex)",
        })),
      );
      if (picked === undefined) return;
      provider = picked;
    }
    if (!isSignInProvider(provider)) {
      const claude = /^(anthropic|claude)/i.test(provider);
      context.notify(
        claude
          ? "Claude Pro/Max sign-in is not offered (Anthropic's terms do not allow it in third-party tools); set ANTHROPIC_API_KEY instead."
          : `Unknown sign-in "${provider}"; use ${SIGN_IN_PROVIDERS.join(" or ")}.`,
        "error",
      );
      return;
    }
    const { signIn } = await import("../../../core/auth/sign-in.js");
    try {
      const done = await signIn(provider, {
        gyreHome: context.session.info.gyreHome,
        env: process.env,
        onCode: ({ userCode, verificationUri }) =>
          context.notify(`Open ${verificationUri} and enter the code ${userCode}; waiting for GitHub…`, "info"),
        onUrl: (url) =>
          context.notify(`Open this page to sign in with your ChatGPT account, then come back: ${url}`, "info"),
      });
      context.notify(`${done} Switch with /model ${provider}/…`, "info");
    } catch (error) {
      context.notify(error instanceof Error ? error.message : String(error), "error");
    }
  },
};
