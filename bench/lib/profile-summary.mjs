// Summarises a V8 .cpuprofile: self time per function and per package, top N; with `lastSeconds`, only the
// samples of the profile's last seconds (the load, not the start-up).
//   node bench/lib/profile-summary.mjs file.cpuprofile [N] [lastSeconds]
import { readFileSync } from "node:fs";

export function summarize(path, top = 30, lastSeconds = Number.POSITIVE_INFINITY) {
  const profile = JSON.parse(readFileSync(path, "utf8"));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const from = profile.endTime - lastSeconds * 1e6;
  const selfTicks = new Map();
  let at = profile.startTime;
  let total = 0;
  profile.samples.forEach((id, index) => {
    at += profile.timeDeltas[index];
    if (at <= from) return;
    total += 1;
    selfTicks.set(id, (selfTicks.get(id) ?? 0) + 1);
  });
  const perFunction = new Map();
  const perPackage = new Map();
  for (const [id, ticks] of selfTicks) {
    const { callFrame } = byId.get(id);
    const url = callFrame.url.replace(/^file:\/\//, "");
    const where = url ? `${url.replace(/.*node_modules\//, "")}:${callFrame.lineNumber + 1}` : "(native)";
    const name = `${callFrame.functionName || "(anonymous)"}  ${where}`;
    perFunction.set(name, (perFunction.get(name) ?? 0) + ticks);
    const pkg = !url
      ? callFrame.functionName.startsWith("(")
        ? callFrame.functionName
        : "(native)"
      : url.startsWith("node:")
        ? "node core"
        : url.startsWith("wasm:")
          ? "wasm (PGlite)"
          : url.includes("node_modules/")
            ? url.replace(/.*node_modules\/((?:@[^/]+\/)?[^/]+).*/, "$1")
            : url.includes("/dist/")
              ? "flotilla (dist)"
              : url;
    perPackage.set(pkg, (perPackage.get(pkg) ?? 0) + ticks);
  }
  const rows = (map) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, ticks]) => `${((ticks / total) * 100).toFixed(1).padStart(5)} %  ${name}`);
  return { total, functions: rows(perFunction), packages: rows(perPackage) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { total, functions, packages } = summarize(
    process.argv[2],
    Number(process.argv[3] ?? 30),
    Number(process.argv[4] ?? Number.POSITIVE_INFINITY),
  );
  console.log(`${total} samples\n\nself time per package:\n${packages.join("\n")}\n\nself time per function:`);
  console.log(functions.join("\n"));
}
