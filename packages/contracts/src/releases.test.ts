/** The distribution contracts (issue 36): what a version, a signature, a file name and a path may be. */
import { describe, expect, it } from "vitest";
import {
  AddArtifactRequestSchema,
  ArtifactFilenameSchema,
  CreateReleaseRequestSchema,
  RELEASE_PATHS,
  releasePath,
  SemverSchema,
  UpdateCheckRequestSchema,
} from "./releases";

describe("release contracts", () => {
  it("versions are SemVer 2.0, nothing looser", () => {
    for (const ok of ["0.0.1", "1.2.3", "1.2.3-beta.1", "1.2.3-rc.1+build.5", "10.20.30"]) {
      expect(SemverSchema.safeParse(ok).success, ok).toBe(true);
    }
    for (const bad of ["1", "1.2", "v1.2.3", "01.2.3", "1.2.3-", "1.2.3-01", "1.2.3 beta", "", "1.2.3+"]) {
      expect(SemverSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it("file names cannot name a path, hide a quote or a control character", () => {
    for (const ok of ["Flotilla-1.2.3.dmg", "Flotilla_1.2.3_x64-setup.exe", "flotilla_1.2.3_amd64.AppImage.tar.gz"]) {
      expect(ArtifactFilenameSchema.safeParse(ok).success, ok).toBe(true);
    }
    for (const bad of ["../etc/passwd", "a/b.dmg", 'x".dmg', ".hidden", "a\u0000b", "a b.dmg", "é.dmg"]) {
      expect(ArtifactFilenameSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it("an artifact declares both checksums and both signatures in their formats; unknown fields are refused", () => {
    const artifact = {
      platform: "macos",
      arch: "universal",
      filename: "Flotilla.dmg",
      size: 10,
      sha256: "a".repeat(64),
      sha512: "b".repeat(128),
      signature: `${"A".repeat(86)}==`,
      minisign_signature: "B".repeat(200),
    };
    expect(AddArtifactRequestSchema.safeParse(artifact).success).toBe(true);
    expect(AddArtifactRequestSchema.safeParse({ ...artifact, sha256: "a".repeat(63) }).success).toBe(false);
    expect(AddArtifactRequestSchema.safeParse({ ...artifact, signature: "short" }).success).toBe(false);
    expect(AddArtifactRequestSchema.safeParse({ ...artifact, platform: "beos" }).success).toBe(false);
    expect(AddArtifactRequestSchema.safeParse({ ...artifact, storage_key: "../x" }).success).toBe(false);
    expect(CreateReleaseRequestSchema.parse({ version: "1.0.0", channel: "beta" }).notes).toBe("");
    expect(UpdateCheckRequestSchema.safeParse({ license_key: "FLOT-AAAAA", machine_id: "m" }).success).toBe(false);
  });

  it("paths fill their parameters, encoded", () => {
    expect(releasePath(RELEASE_PATHS.adminPublish, { releaseId: "a/b" })).toBe("/api/admin/releases/a%2Fb/publish");
    expect(() => releasePath(RELEASE_PATHS.adminPublish)).toThrow(/releaseId/);
  });
});
