import type { UserInterface } from "../../core/user-interface.js";

/**
 * A plain line-based `UserInterface` on the terminal, for questions asked before the full-screen
 * UI starts (the folder-trust prompt). Reads one cooked line per question and then releases
 * stdin, so the screen UI can take the terminal over afterwards.
 */
export function createLineUserInterface(input: NodeJS.ReadStream, output: NodeJS.WriteStream): UserInterface {
  const ask = (question: string) =>
    new Promise<string>((resolve) => {
      output.write(question);
      input.setEncoding("utf8");
      let buffer = "";
      const finish = (answer: string) => {
        input.off("data", onData);
        input.off("end", onEnd);
        input.pause();
        resolve(answer);
      };
      const onData = (chunk: string) => {
        buffer += chunk;
        const end = buffer.search(/[\r\n]/);
        if (end >= 0) finish(buffer.slice(0, end));
      };
      const onEnd = () => finish(buffer);
      input.on("data", onData);
      input.on("end", onEnd);
      input.resume();
    });
  return {
    interactive: true,
    confirm: async ({ title, message }) => {
      const answer = await ask(`\n${title}\n${message ? `${message}\n` : ""}Answer y or n [n]: `);
      return /^\s*y(es)?\s*$/i.test(answer);
    },
    select: async ({ title, options }) => {
      const list = options.map((option, index) => `  ${index + 1}. ${option}`).join("\n");
      const answer = Number((await ask(`\n${title}\n${list}\nNumber (empty to cancel): `)).trim());
      return Number.isInteger(answer) ? options[answer - 1] : undefined;
    },
    input: async ({ title, placeholder }) => {
      const answer = await ask(`\n${title}${placeholder ? ` (${placeholder})` : ""}: `);
      return answer === "" ? undefined : answer;
    },
    notify: (message) => {
      output.write(`${message}\n`);
    },
  };
}
