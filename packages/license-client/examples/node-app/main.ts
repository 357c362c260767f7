/**
 * node --experimental-strip-types examples/node-app/main.ts <license key> [server]
 * (or through tsx). Runs until Ctrl-C; quits with --release to free the slot.
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
process.once("SIGINT", () => {
  void app.quit({ release: process.argv.includes("--release") }).then(() => process.exit(0));
});
