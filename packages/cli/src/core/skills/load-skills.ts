import { readdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { parseFrontmatter } from "./parse-frontmatter.js";

/** A skill (Agent Skills format): a folder with a `SKILL.md` whose frontmatter has a name and description. */
export type Skill = { name: string; description: string; filePath: string; baseDir: string };

/**
 * The skills in each of `dirs` (each subfolder holding a `SKILL.md`); a later folder's skill
 * replaces an earlier one of the same name (project over user). A skill without a description
 * is left out with a warning: the model could not know when to use it.
 */
export async function loadSkills(dirs: readonly string[]): Promise<{ skills: Skill[]; warnings: string[] }> {
  const byName = new Map<string, Skill>();
  const warnings: string[] = [];
  for (const dir of dirs) {
    let names: string[];
    try {
      names = (await readdir(dir, { withFileTypes: true }))
        .filter((entry) => entry.isDirectory() && !entry.name.startsWith("."))
        .map((entry) => entry.name)
        .sort();
    } catch {
      continue;
    }
    for (const folder of names) {
      const filePath = join(dir, folder, "SKILL.md");
      let text: string;
      try {
        text = await readFile(filePath, "utf8");
      } catch {
        continue;
      }
      let fields: Record<string, string>;
      try {
        ({ fields } = await parseFrontmatter(text, filePath));
      } catch (error) {
        warnings.push(`${(error as Error).message} The skill was not loaded.`);
        continue;
      }
      const name = fields.name || folder;
      if (!fields.description) {
        warnings.push(`The skill ${filePath} has no description in its frontmatter, so it was not loaded.`);
        continue;
      }
      byName.set(name, { name, description: fields.description, filePath, baseDir: dirname(filePath) });
    }
  }
  return { skills: [...byName.values()], warnings };
}

/** The system prompt section listing skills (progressive disclosure: the model reads a file when it needs it). */
export function formatSkillsSection(skills: readonly Skill[]): string {
  if (skills.length === 0) return "";
  const lines = skills.map((skill) => `- ${skill.name}: ${skill.description}\n  file: ${skill.filePath}`);
  return [
    "# Skills",
    "Skills are instructions for specific kinds of tasks. When a task matches a skill's description, read its file with the read tool before you start, then follow it. Relative paths in a skill are relative to its folder.",
    ...lines,
  ].join("\n");
}

/** The text `/skill:name args` sends: the skill's instructions, then the user's arguments. */
export async function expandSkill(skill: Skill, args: string): Promise<string> {
  const { body } = await parseFrontmatter(await readFile(skill.filePath, "utf8"), skill.filePath);
  const block = `<skill name="${skill.name}" location="${skill.filePath}">\nReferences are relative to ${skill.baseDir}.\n\n${body.trim()}\n</skill>`;
  return args.trim() ? `${block}\n\n${args.trim()}` : block;
}
