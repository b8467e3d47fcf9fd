import { mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { explainProbeFailure, findExecutable, probeSandbox } from "./probe-sandbox.js";

describe("probeSandbox", () => {
  it("finds the installed bwrap usable here", async () => {
    const availability = await probeSandbox({ PATH: process.env.PATH });
    expect(availability).toEqual({ available: true, bwrapPath: expect.stringMatching(/\/bwrap$/) });
  });

  it("reports bwrap missing from PATH with the cause and the fix", async () => {
    const dir = await mkdtemp(join(tmpdir(), "gyre-path-"));
    try {
      await symlink("/bin/sh", join(dir, "sh"));
      const availability = await probeSandbox({ PATH: dir });
      expect(availability.available).toBe(false);
      if (availability.available) return;
      expect(availability.cause).toContain("bubblewrap (bwrap) is not installed");
      expect(availability.fix).toContain("apt-get install bubblewrap");
      expect(availability.fix).toContain("--sandbox off");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("caches the probe per PATH", () => {
    expect(probeSandbox({ PATH: "/nonexistent-a" })).toBe(probeSandbox({ PATH: "/nonexistent-a" }));
  });

  it("reports a bwrap that cannot create namespaces with the sysctl to change", async () => {
    const dir = await mkdtemp(join(tmpdir(), "gyre-path-"));
    try {
      // A real executable that fails the way bwrap does under a container's seccomp profile.
      const { writeFile, chmod } = await import("node:fs/promises");
      await writeFile(
        join(dir, "bwrap"),
        "#!/bin/sh\necho 'bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces.' >&2\nexit 1\n",
      );
      await chmod(join(dir, "bwrap"), 0o755);
      const availability = await probeSandbox({ PATH: `${dir}:/usr/bin:/bin` });
      expect(availability.available).toBe(false);
      if (availability.available) return;
      expect(availability.cause).toContain("cannot create user namespaces");
      expect(availability.fix).toContain("kernel.unprivileged_userns_clone=1");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("explainProbeFailure", () => {
  it("names other failures as a broken installation", () => {
    expect(explainProbeFailure("bwrap: Unknown option --foo").cause).toContain("bwrap failed to start");
  });
});

describe("findExecutable", () => {
  it("skips empty PATH entries and missing directories", async () => {
    expect(await findExecutable("sh", "::/nonexistent:/bin")).toBe("/bin/sh");
    expect(await findExecutable("sh", undefined)).toBeUndefined();
  });
});
