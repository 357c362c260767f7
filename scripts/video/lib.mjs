// Shared helpers for the video and image scripts in this folder.
//
// Requirements (no internet needed):
//   - playwright-core, resolved from the repo root's node_modules (root devDependency).
//     Only the library is used; no Playwright browser download is needed.
//   - Debian's Chromium at /usr/bin/chromium (override with CHROMIUM_PATH).
//   - ffmpeg with libx264 and libwebp at /usr/bin/ffmpeg (override with FFMPEG_PATH).
import { spawn } from "node:child_process";
import { stat } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

export const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, "../..");
export const publicDir = path.join(repoRoot, "apps/web/public");
export const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
export const FFMPEG = process.env.FFMPEG_PATH || "/usr/bin/ffmpeg";
export const FFPROBE = process.env.FFPROBE_PATH || "/usr/bin/ffprobe";

const CHROME_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--font-render-hinting=none",
  "--hide-scrollbars",
];

export function launch() {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROME_ARGS });
}

/** Opens a local HTML file from this folder at the given CSS-pixel size, 1x, with all network access refused. */
export async function openPage(browser, file, width, height) {
  const context = await browser.newContext({ viewport: { width, height }, deviceScaleFactor: 1, colorScheme: "dark" });
  const page = await context.newPage();
  await page.route(/^(?!file:)/, (route) => route.abort());
  page.on("pageerror", (err) => {
    throw err;
  });
  await page.goto(pathToFileURL(path.join(here, file)).href);
  await page.evaluate(() => document.fonts.ready);
  return { context, page };
}

/** Runs a command, rejects with its stderr on a non-zero exit. */
export function run(cmd, args, { input } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: [input ? "pipe" : "ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.stderr.on("data", (d) => {
      err += d;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve(out);
      else reject(new Error(`${cmd} ${args.join(" ")} exited with ${code}\n${err.slice(-2000)}`));
    });
    if (input) child.stdin.end(input);
  });
}

export const size = async (file) => (await stat(file)).size;
export const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
export const mb = (n) => `${(n / 1024 / 1024).toFixed(2)} MB`;
export const rel = (file) => path.relative(repoRoot, file);

/**
 * Encodes a PNG/JPEG file to WebP, lowering the quality step by step until the file fits maxBytes.
 * Returns { quality, bytes }.
 */
export async function toWebp(
  input,
  output,
  { quality = 80, minQuality = 50, maxBytes = Number.POSITIVE_INFINITY, width } = {},
) {
  // Downscaled copies (for srcset) use Lanczos; the height follows the aspect ratio, kept even.
  const scale = width ? ["-vf", `scale=${width}:-2:flags=lanczos`] : [];
  for (let q = quality; ; q -= 4) {
    await run(FFMPEG, [
      "-hide_banner",
      "-loglevel",
      "error",
      "-y",
      "-i",
      input,
      ...scale,
      "-c:v",
      "libwebp",
      "-quality",
      String(q),
      "-compression_level",
      "6",
      "-preset",
      "picture",
      output,
    ]);
    const bytes = await size(output);
    if (bytes <= maxBytes || q - 4 < minQuality) return { quality: q, bytes };
  }
}
