/** What bench/distribution.mjs needs from TypeScript sources (bundled on the fly, as the analytics harness is). */
export { devSignInOverHttp } from "../../apps/api/test/helpers/dev-sign-in-http";
export { loadReleaseSigningKey, signArtifact } from "../../packages/contracts/src/release-signing";
