/**
 * A small line-based syntax highlighter for code blocks in answers: comments, strings, numbers
 * and keywords of the common languages. Good enough to read code at a glance; no grammar files,
 * no dependency, and each line stands alone so a streaming block never re-colours earlier lines.
 */
import { paint } from "./palette.js";

const keywords = new Set(
  (
    "abstract as async await break case catch class const continue def default defer del delete do elif else " +
    "enum export extends false final finally fn for from func function go if impl import in instanceof interface " +
    "is lambda let loop match mod module mut namespace new nil None not null or package pass private protected " +
    "pub public raise readonly return self static struct super switch this throw throws trait true True False try " +
    "type typeof undefined unsafe use var void where while with yield echo then fi done esac local"
  ).split(" "),
);

const hashCommentLanguages = new Set([
  "python",
  "py",
  "sh",
  "bash",
  "shell",
  "zsh",
  "ruby",
  "rb",
  "yaml",
  "yml",
  "toml",
]);
const token =
  /(\/\/.*$|#.*$|--.*$)|("(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?|`(?:[^`\\]|\\.)*`?)|(\b\d[\d_]*(?:\.\d+)?(?:e[+-]?\d+)?\b|\b0x[\da-f]+\b)|([A-Za-z_$][\w$]*)/gi;

/** Colours `code` line by line; returns one string per line. Unknown languages get the same treatment. */
export function highlightCode(code: string, lang?: string): string[] {
  const language = (lang ?? "").toLowerCase();
  if (language === "diff" || language === "patch") return code.split("\n").map(highlightDiffLine);
  const hashComments = hashCommentLanguages.has(language);
  const dashComments = language === "sql" || language === "lua" || language === "haskell";
  return code.split("\n").map((line) => highlightLine(line, hashComments, dashComments));
}

/** A unified-diff line: removals red, additions green, hunk headers cyan, like an edit's diff. */
function highlightDiffLine(line: string): string {
  if (line.startsWith("+++") || line.startsWith("---")) return `\x1b[1m${line}\x1b[22m`;
  if (line.startsWith("+")) return paint("green", line);
  if (line.startsWith("-")) return paint("red", line);
  if (line.startsWith("@@")) return paint("cyan", line);
  return line;
}

function highlightLine(line: string, hashComments: boolean, dashComments: boolean): string {
  return line.replace(
    token,
    (
      match,
      comment: string | undefined,
      string: string | undefined,
      number: string | undefined,
      word: string | undefined,
    ) => {
      if (comment !== undefined) {
        const isComment =
          comment.startsWith("//") ||
          (hashComments && comment.startsWith("#")) ||
          (dashComments && comment.startsWith("--"));
        // Not a comment in this language: colour nothing, but keep highlighting what follows.
        if (!isComment) return comment[0] + highlightLine(comment.slice(1), hashComments, dashComments);
        return paint("gray", comment);
      }
      if (string !== undefined) return paint("green", string);
      if (number !== undefined) return paint("yellow", number);
      if (word !== undefined && keywords.has(word)) return paint("magenta", word);
      return match;
    },
  );
}
