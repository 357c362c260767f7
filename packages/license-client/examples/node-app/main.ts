/**
 * node --experimental-strip-types examples/node-app/main.ts <license key> [server]
 * (or through tsx). Runs one agent task under an execution lease, then stays until Ctrl-C; quits with --release to
 * free the slot.
 */
import { startDesktopApp } from "./app";

const [licenseKey, server = process.env.FLOTILLA_SERVER ?? "http://localhost:3000"] = process.argv
  .slice(2)
  .filter((arg) => !arg.startsWith("--"));
if (!licenseKey) {
  console.error("Usage: main.ts <license key> [server] [--release]");
  process.exit(2);
}
const app = await startDesktopApp({ server, licenseKey });
console.log(`up to ${app.agentSlots()} agents at once; shared memory ${app.canShareMemory() ? "on" : "off"}`);
// One agent task under an execution lease: refused (and said why) when the plan's executions are all running.
const outcome = await app.runAgent("code-review", async (execution) => {
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  return execution.signal.aborted ? "stopped: the lease was lost" : "reviewed";
});
console.log(outcome.ran ? `agent finished: ${outcome.result}` : `agent not started: ${outcome.refusal}`);
process.once("SIGINT", () => {
  void app.quit({ release: process.argv.includes("--release") }).then(() => process.exit(0));
});
