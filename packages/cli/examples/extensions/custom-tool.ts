/**
 * A custom tool: `word_count` counts lines, words and characters of a text. Shows the tool
 * contract (a TypeBox schema, `execute` returning content for the model and details for UIs)
 * and a runtime import of `@sinclair/typebox`, which resolves to gyre's own copy.
 *
 *   gyre -e packages/cli/examples/extensions/custom-tool.ts -p "how many words are in 'a b c'?"
 */
import { Type } from "@sinclair/typebox";
import type { ExtensionAPI } from "../../src/core/extensions/types.js";

export default function customTool(api: ExtensionAPI): void {
  api.registerTool({
    name: "word_count",
    label: "Word count",
    description: "Counts the lines, words and characters of a text. Use it instead of counting by hand.",
    parameters: Type.Object({ text: Type.String({ description: "The text to count" }) }),
    execute: async ({ text }) => {
      const counts = {
        lines: text === "" ? 0 : text.split("\n").length,
        words: text.split(/\s+/).filter(Boolean).length,
        characters: [...text].length,
      };
      return {
        content: [
          { type: "text", text: `${counts.lines} lines, ${counts.words} words, ${counts.characters} characters` },
        ],
        details: counts,
      };
    },
  });
}
