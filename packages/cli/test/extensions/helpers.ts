import { fileURLToPath } from "node:url";
import type { FakeBody } from "../helpers/fake-model-server.mjs";

/** An example extension's absolute path. */
export function example(name: string): string {
  return fileURLToPath(new URL(`../../examples/extensions/${name}`, import.meta.url));
}

/** The tool messages of an OpenAI chat request, as text. */
export function toolMessages(body: FakeBody | undefined): string[] {
  return (body?.messages ?? [])
    .filter((message) => message.role === "tool")
    .map((message) => (typeof message.content === "string" ? message.content : JSON.stringify(message.content)));
}

/** The system message of an OpenAI chat request, as text. */
export function systemText(body: FakeBody | undefined): string {
  const system = body?.messages?.find((message) => message.role === "system" || message.role === "developer");
  return typeof system?.content === "string" ? system.content : JSON.stringify(system?.content ?? "");
}

/** The last user message of an OpenAI chat request, as text. */
export function lastUserText(body: FakeBody | undefined): string {
  const user = (body?.messages ?? []).filter((message) => message.role === "user").at(-1);
  return typeof user?.content === "string" ? user.content : JSON.stringify(user?.content ?? "");
}
