import { type Component, truncateToWidth } from "@mariozechner/pi-tui";
import { style } from "../theme.js";
import { shortenPath } from "./footer-view.js";

/** What the header shows; fixed for a session except the model. */
export type HeaderInfo = {
  version: string;
  model: string;
  cwd: string;
  home: string | undefined;
  contextFiles: readonly string[];
  extensions: readonly string[];
};

/** The top of the conversation: gyre's version and model, the folder, loaded context files and extensions. */
export class HeaderView implements Component {
  private cachedWidth = -1;
  private cachedLines: string[] | undefined;

  constructor(private info: HeaderInfo) {}

  setModel(model: string): void {
    this.info = { ...this.info, model };
    this.cachedLines = undefined;
  }

  invalidate(): void {
    this.cachedLines = undefined;
  }

  render(width: number): string[] {
    if (this.cachedLines && this.cachedWidth === width) return this.cachedLines;
    const { info } = this;
    const shorten = (path: string) => shortenPath(path, info.home);
    const lines = [
      `${style.bold(style.cyan("gyre"))} ${style.gray(`v${info.version}`)}  ${info.model}  ${style.gray(shorten(info.cwd))}`,
    ];
    if (info.contextFiles.length > 0) lines.push(style.gray(`context: ${info.contextFiles.map(shorten).join(", ")}`));
    if (info.extensions.length > 0) lines.push(style.gray(`extensions: ${info.extensions.join(", ")}`));
    lines.push(style.gray("Enter send · Shift+Enter/Ctrl+J newline · Esc abort · Ctrl+C twice quit · /help"));
    lines.push("");
    this.cachedLines = lines.map((line) => truncateToWidth(line, width));
    this.cachedWidth = width;
    return this.cachedLines;
  }
}
