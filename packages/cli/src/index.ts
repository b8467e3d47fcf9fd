/** gyre — the coding agent: tools, sessions, settings, extensions and modes. */
export const version = "0.1.0";
