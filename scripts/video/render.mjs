#!/usr/bin/env node
import { writeFileSync } from "node:fs";
// Renders the Flotilla product-tour video from tour.html.
//
//   node scripts/video/render.mjs                 # full video + poster (from the repo root, or anywhere)
//   node scripts/video/render.mjs --preview 3,12.5,30   # only write PNG frames at those seconds to /tmp/flotilla-preview
//   options: --workers N (parallel capture pages, default 2), --crf N (start CRF, default 21; raised until <= 6 MB)
//
// Outputs (paths relative to the repo root):
//   apps/web/public/video/flotilla-tour.mp4         H.264 (libx264, yuv420p, +faststart), 1280x720, 24 fps, no audio, <= 6 MB
//   apps/web/public/video/flotilla-tour-poster.webp 1280x720 poster frame
//
// Needs playwright-core (root devDependency, `import { chromium } from "playwright-core"`),
// Chromium at /usr/bin/chromium and ffmpeg at /usr/bin/ffmpeg; see lib.mjs.
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { CAPTIONS_FILE, webVtt } from "./captions.mjs";
import { FFMPEG, FFPROBE, kb, launch, mb, openPage, publicDir, rel, run, size, toWebp } from "./lib.mjs";

const W = 1280;
const H = 720;
const FPS = 24;
const MAX_BYTES = 6 * 1024 * 1024;
const POSTER_T = 12.6; // seconds: the board with three agents at work
const outDir = path.join(publicDir, "video");
const mp4 = path.join(outDir, "flotilla-tour.mp4");
const poster = path.join(outDir, "flotilla-tour-poster.webp");

const args = process.argv.slice(2);
const previewArg = args.includes("--preview") ? args[args.indexOf("--preview") + 1] : null;
const crfArg = args.includes("--crf") ? Number(args[args.indexOf("--crf") + 1]) : 21;
const WORKERS = args.includes("--workers") ? Number(args[args.indexOf("--workers") + 1]) : 2;

const started = Date.now();
const browser = await launch();
try {
  const { page } = await openPage(browser, "tour.html", W, H);
  const durationMs = await page.evaluate(() => window.TOUR_DURATION_MS);

  if (previewArg) {
    const dir = "/tmp/flotilla-preview";
    await mkdir(dir, { recursive: true });
    for (const s of previewArg.split(",").map(Number)) {
      await page.evaluate((ms) => window.renderAt(ms), s * 1000);
      const file = path.join(dir, `t${s.toFixed(2)}.png`);
      await page.screenshot({ path: file });
      console.log(file);
    }
  } else {
    const frames = Math.round((durationMs / 1000) * FPS);
    const tmp = await mkdtemp(path.join(os.tmpdir(), "flotilla-frames-"));
    try {
      // renderAt(ms) is a pure function of time, so several pages can capture interleaved frames in parallel.
      const pages = [page];
      for (let k = 1; k < WORKERS; k++) pages.push((await openPage(browser, "tour.html", W, H)).page);
      let done = 0;
      await Promise.all(
        pages.map(async (pg, k) => {
          for (let i = k; i < frames; i += pages.length) {
            await pg.evaluate((ms) => window.renderAt(ms), (i * 1000) / FPS);
            await pg.screenshot({
              path: path.join(tmp, `f${String(i).padStart(5, "0")}.jpg`),
              type: "jpeg",
              quality: 92,
            });
            done++;
            if (done % 120 === 0)
              console.log(`frames ${done}/${frames} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
          }
        }),
      );
      await mkdir(outDir, { recursive: true });
      // Encode; if the file is over budget, retry with a higher CRF.
      for (let crf = crfArg; ; crf += 3) {
        await run(FFMPEG, [
          "-hide_banner",
          "-loglevel",
          "error",
          "-y",
          "-framerate",
          String(FPS),
          "-i",
          path.join(tmp, "f%05d.jpg"),
          "-vf",
          "scale=in_range=pc:out_range=tv:out_color_matrix=bt709,format=yuv420p",
          "-c:v",
          "libx264",
          "-preset",
          "slow",
          "-crf",
          String(crf),
          "-profile:v",
          "high",
          "-pix_fmt",
          "yuv420p",
          "-colorspace",
          "bt709",
          "-color_primaries",
          "bt709",
          "-color_trc",
          "bt709",
          "-movflags",
          "+faststart",
          "-an",
          mp4,
        ]);
        const bytes = await size(mp4);
        console.log(`encoded with CRF ${crf}: ${mb(bytes)}`);
        if (bytes <= MAX_BYTES || crf >= 36) break;
      }
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }

    // Poster: a lossless capture of one frame, encoded to WebP.
    await page.evaluate((ms) => window.renderAt(ms), POSTER_T * 1000);
    const png = path.join(os.tmpdir(), `flotilla-poster-${process.pid}.png`);
    await page.screenshot({ path: png });
    const p = await toWebp(png, poster, { quality: 85, maxBytes: 150 * 1024 });
    await rm(png, { force: true });

    const probe = JSON.parse(
      await run(FFPROBE, [
        "-v",
        "error",
        "-show_entries",
        "format=duration:stream=codec_name,width,height,nb_frames",
        "-of",
        "json",
        mp4,
      ]),
    );
    const v = probe.streams[0];
    console.log("");
    console.log(`video   ${rel(mp4)}`);
    console.log(
      `        ${v.codec_name} ${v.width}x${v.height}, ${Number(probe.format.duration).toFixed(2)} s, ${v.nb_frames} frames @ ${FPS} fps, ${mb(await size(mp4))}`,
    );
    console.log(`poster  ${rel(poster)}  ${W}x${H} webp q${p.quality}, ${kb(p.bytes)}`);
    writeFileSync(CAPTIONS_FILE, webVtt());
    console.log(`captions ${rel(CAPTIONS_FILE)}`);
  }
} finally {
  await browser.close();
}
console.log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
