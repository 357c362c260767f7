#!/usr/bin/env node
// Renders the site's still images from tour.html and covers.html.
//
//   node scripts/video/stills.mjs             # everything
//   node scripts/video/stills.mjs docs blog   # a subset: docs, blog, og
//
// Outputs (paths relative to the repo root):
//   apps/web/public/images/docs/task-board.webp      1600x1000, <= 150 KB
//   apps/web/public/images/docs/agent-editor.webp    1600x1000, <= 150 KB
//   apps/web/public/images/docs/<name>-800w.webp     800x500, for phones (srcset)
//   apps/web/public/images/blog/<slug>.webp          1200x630,  <= 60 KB each
//   apps/web/public/images/blog/<slug>-800w.webp     800x420, for phones (srcset)
//   apps/web/public/images/og-default.png            1200x630,  <= 200 KB
//
// Needs playwright-core (root devDependency), /usr/bin/chromium and /usr/bin/ffmpeg; see lib.mjs.
import { mkdir, rename, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { FFMPEG, kb, launch, openPage, publicDir, rel, run, size, toWebp } from "./lib.mjs";

const LIMITS = { docs: 150 * 1024, blog: 60 * 1024, og: 200 * 1024 };
const wanted = process.argv.slice(2);
const want = (k) => wanted.length === 0 || wanted.includes(k);
const tmpPng = (name) => path.join(os.tmpdir(), `flotilla-${process.pid}-${name}.png`);
const report = [];
const over = [];

/** Saves the page as `out` and, for each of `smallerWidths`, a downscaled `<name>-<width>w.webp` for srcset. */
async function saveWebp(page, out, maxBytes, smallerWidths = []) {
  const png = tmpPng(path.basename(out));
  await page.screenshot({ path: png });
  await mkdir(path.dirname(out), { recursive: true });
  const r = await toWebp(png, out, { quality: 90, minQuality: 40, maxBytes });
  report.push(`${rel(out).padEnd(58)} webp q${r.quality}  ${kb(r.bytes)}`);
  if (r.bytes > maxBytes) over.push(rel(out));
  for (const width of smallerWidths) {
    const small = out.replace(/\.webp$/, `-${width}w.webp`);
    const s = await toWebp(png, small, { quality: 85, minQuality: 40, maxBytes: maxBytes / 3, width });
    report.push(`${rel(small).padEnd(58)} webp q${s.quality}  ${kb(s.bytes)}`);
  }
  await rm(png, { force: true });
}

const started = Date.now();
const browser = await launch();
try {
  if (want("docs")) {
    for (const kind of ["board", "agent-editor"]) {
      const { context, page } = await openPage(browser, "tour.html", 1600, 1000);
      await page.evaluate((k) => window.renderStill(k), kind);
      const name = kind === "board" ? "task-board" : "agent-editor";
      await saveWebp(page, path.join(publicDir, "images/docs", `${name}.webp`), LIMITS.docs, [800]);
      await context.close();
    }
  }

  if (want("blog") || want("og")) {
    const { context, page } = await openPage(browser, "covers.html", 1200, 630);
    if (want("blog")) {
      const slugs = await page.evaluate(() => window.COVERS);
      for (const slug of slugs) {
        await page.evaluate((s) => window.renderCover(s), slug);
        await saveWebp(page, path.join(publicDir, "images/blog", `${slug}.webp`), LIMITS.blog, [800]);
      }
    }
    if (want("og")) {
      await page.evaluate(() => window.renderOg());
      const out = path.join(publicDir, "images/og-default.png");
      const raw = tmpPng("og-raw");
      await page.screenshot({ path: raw });
      await mkdir(path.dirname(out), { recursive: true });
      // Recompress losslessly; if still over budget, quantise to a 256-colour palette with dithering.
      const tmp = `${out}.tmp.png`;
      await run(FFMPEG, [
        "-hide_banner",
        "-loglevel",
        "error",
        "-y",
        "-i",
        raw,
        "-compression_level",
        "100",
        "-pred",
        "mixed",
        tmp,
      ]);
      let how = "lossless";
      if ((await size(tmp)) > LIMITS.og) {
        await run(FFMPEG, [
          "-hide_banner",
          "-loglevel",
          "error",
          "-y",
          "-i",
          raw,
          "-filter_complex",
          "[0:v]split[a][b];[a]palettegen=max_colors=256:stats_mode=full[p];[b][p]paletteuse=dither=sierra2_4a",
          "-compression_level",
          "100",
          tmp,
        ]);
        how = "256-colour palette";
      }
      await rename(tmp, out);
      await rm(raw, { force: true });
      const bytes = await size(out);
      report.push(`${rel(out).padEnd(58)} png ${how}  ${kb(bytes)}`);
      if (bytes > LIMITS.og) over.push(rel(out));
    }
    await context.close();
  }
} finally {
  await browser.close();
}
console.log(report.join("\n"));
console.log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
if (over.length) {
  console.error(`over budget: ${over.join(", ")}`);
  process.exitCode = 1;
}
