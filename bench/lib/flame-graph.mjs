// A flame graph of a V8 .cpuprofile (the `--profile` run of `npm run bench:api`): the samples of the profile's last
// seconds merged into one tree of call stacks, written as a self-contained SVG (hover a frame for its name and
// share) and as folded stacks ("a;b;c count" lines, the input of Brendan Gregg's flamegraph.pl and speedscope).
// Also the inclusive time per function: the share of samples whose stack holds it, the figure that says what a
// cut would save (self time spreads one cost over the functions it calls).
//   node bench/lib/flame-graph.mjs file.cpuprofile [lastSeconds] [out-without-extension]
import { readFileSync, writeFileSync } from "node:fs";

const WIDTH = 1600;
const ROW = 17;
const MIN_WIDTH = 0.4; // px: narrower frames are dropped (and said so in their parent's title)

function frameName(callFrame) {
  const url = callFrame.url.replace(/^file:\/\//, "");
  const where = url
    ? ` ${url.replace(/.*node_modules\//, "").replace(/.*\/dist\//, "dist/")}:${callFrame.lineNumber + 1}`
    : "";
  return `${callFrame.functionName || "(anonymous)"}${where}`;
}

/** The root-first stack of frame names of every sample in the window, with its count. */
export function foldedStacks(path, lastSeconds = Number.POSITIVE_INFINITY) {
  const profile = JSON.parse(readFileSync(path, "utf8"));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const from = profile.endTime - lastSeconds * 1e6;
  const counts = new Map();
  let at = profile.startTime;
  profile.samples.forEach((id, index) => {
    at += profile.timeDeltas[index];
    if (at > from) counts.set(id, (counts.get(id) ?? 0) + 1);
  });
  const stacks = new Map();
  for (const [id, count] of counts) {
    const names = [];
    for (let node = id; node !== undefined; node = parentOf.get(node)) names.push(frameName(byId.get(node).callFrame));
    names.reverse(); // root first; "(root)" itself is dropped below
    const key = names.slice(1).join(";") || "(root)";
    stacks.set(key, (stacks.get(key) ?? 0) + count);
  }
  return stacks;
}

/** Share of samples whose stack holds each function (counted once per sample however deep it recurses). */
export function inclusiveShares(stacks, top = 30) {
  let total = 0;
  const holding = new Map();
  for (const [stack, count] of stacks) {
    total += count;
    for (const name of new Set(stack.split(";"))) holding.set(name, (holding.get(name) ?? 0) + count);
  }
  return [...holding]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, count]) => `${((count / total) * 100).toFixed(1).padStart(5)} %  ${name}`);
}

const escapeXml = (text) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** Warm colours for JavaScript, cooler ones for node core and native frames, so where time goes reads at a glance. */
function colour(name) {
  let hash = 0;
  for (const char of name) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  const shade = hash % 40;
  if (name.includes(" node:") || !name.includes(" ")) return `rgb(${90 + shade},${150 + shade},${200 + (shade % 30)})`;
  if (name.includes(" dist/")) return `rgb(${215 + (shade % 40)},${110 + shade},60)`;
  return `rgb(${220 + (shade % 35)},${170 + shade},${60 + shade})`;
}

export function flameGraphSvg(stacks, title) {
  const root = { name: "all", count: 0, children: new Map() };
  for (const [stack, count] of stacks) {
    root.count += count;
    let node = root;
    for (const name of stack.split(";")) {
      let child = node.children.get(name);
      if (!child) {
        child = { name, count: 0, children: new Map() };
        node.children.set(name, child);
      }
      child.count += count;
      node = child;
    }
  }
  const perSample = WIDTH / Math.max(1, root.count);
  let depth = 0;
  const frames = [];
  const place = (node, x, level) => {
    depth = Math.max(depth, level);
    frames.push({ node, x, level });
    let offset = x;
    for (const child of [...node.children.values()].sort((a, b) => a.name.localeCompare(b.name))) {
      if (child.count * perSample >= MIN_WIDTH) place(child, offset, level + 1);
      offset += child.count * perSample;
    }
  };
  place(root, 0, 0);
  const height = (depth + 1) * ROW + 40;
  const rects = frames.map(({ node, x, level }) => {
    const width = node.count * perSample;
    const y = height - (level + 1) * ROW - 4;
    const share = `${((node.count / root.count) * 100).toFixed(2)} %`;
    const label = width > 40 ? escapeXml(node.name.slice(0, Math.floor(width / 7))) : "";
    return `<g><title>${escapeXml(node.name)} — ${share} (${node.count} samples)</title><rect x="${x.toFixed(1)}" y="${y}" width="${Math.max(0.1, width).toFixed(1)}" height="${ROW - 1}" fill="${colour(node.name)}" rx="2"/>${label ? `<text x="${(x + 3).toFixed(1)}" y="${y + 12}">${label}</text>` : ""}</g>`;
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="ui-monospace,monospace" font-size="11">
<rect width="100%" height="100%" fill="#fdfaf4"/>
<text x="8" y="20" font-size="14" font-weight="bold">${escapeXml(title)}</text>
${rects.join("\n")}
</svg>
`;
}

/** Writes `<out>.svg` and `<out>.folded` for the profile's last seconds; answers the inclusive shares. */
export function writeFlameGraph(path, out, { lastSeconds = Number.POSITIVE_INFINITY, title = path, top = 30 } = {}) {
  const stacks = foldedStacks(path, lastSeconds);
  writeFileSync(`${out}.folded`, `${[...stacks].map(([stack, count]) => `${stack} ${count}`).join("\n")}\n`);
  writeFileSync(`${out}.svg`, flameGraphSvg(stacks, title));
  return inclusiveShares(stacks, top);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [path, lastSeconds, out] = process.argv.slice(2);
  const target = out ?? path.replace(/\.cpuprofile$/, "");
  const shares = writeFlameGraph(path, target, { lastSeconds: Number(lastSeconds ?? Number.POSITIVE_INFINITY) });
  console.log(`${target}.svg and ${target}.folded written\n\ninclusive time per function:\n${shares.join("\n")}`);
}
