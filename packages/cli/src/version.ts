/** The gyre version (kept in step with packages/cli/package.json by the release process). */
export const version = "0.1.0";
