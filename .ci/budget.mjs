// Prints the CI run's stages with their wall time beside their recorded median (.ci/budgets.json), and fails when a
// stage took more than BUDGET_FACTOR times its median: a regression in the suite's speed is seen the day it lands.
// A busy machine is slow, not broken: the factor leaves room for a run beside another build (decision 0054).
import { readFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";

const BUDGET_FACTOR = 3;
const WARN_FACTOR = 2;
/** A stage is never over budget by less than this: a short stage's median is noise (a cold download, a cache). */
const SLACK_SECONDS = 120;
/**
 * Past this 15-minute load per core the machine was shared by far more than one other build: a stage over budget is
 * then reported, not failed, since it measures the neighbours rather than the suite.
 */
const BUSY_LOAD_PER_CORE = 3;
const [stagesFile] = process.argv.slice(2);
const budgets = JSON.parse(readFileSync(new URL("./budgets.json", import.meta.url), "utf8"));
const rows = readFileSync(stagesFile, "utf8")
  .split("\n")
  .filter(Boolean)
  .map((line) => {
    const [stage, seconds] = line.split("\t");
    return { stage, seconds: Number(seconds) };
  });

const format = (seconds) =>
  seconds >= 60
    ? `${Math.floor(seconds / 60)} min ${String(Math.round(seconds % 60)).padStart(2)} s`
    : `${seconds.toFixed(1)} s`;
const SUB = " › ";
const top = rows.filter((row) => !row.stage.includes(SUB));
const total = top.reduce((sum, row) => sum + row.seconds, 0);
const over = [];
console.log("\nCI stages (wall time; median recorded in .ci/budgets.json):");
for (const { stage, seconds } of rows) {
  const median = budgets.medians[stage];
  const ratio =
    median && seconds - median > SLACK_SECONDS
      ? seconds / median
      : median
        ? Math.min(seconds / median, WARN_FACTOR)
        : null;
  const mark = ratio === null ? "" : ratio > BUDGET_FACTOR ? "  ✗ over budget" : ratio > WARN_FACTOR ? "  ! slow" : "";
  const indent = stage.includes(SUB) ? "    " : "  ";
  console.log(
    `${indent}${stage.padEnd(60 - indent.length)} ${format(seconds).padStart(10)}${median ? `  (median ${format(median)})` : ""}${mark}`,
  );
  if (ratio !== null && ratio > BUDGET_FACTOR) over.push({ stage, seconds, median });
}
console.log(`  ${"total".padEnd(58)} ${format(total).padStart(10)}`);
if (over.length > 0) {
  console.error("");
  for (const { stage, seconds, median } of over) {
    console.error(
      `✗ "${stage}" took ${format(seconds)}, more than ${BUDGET_FACTOR}× its median of ${format(median)}: find what made it ` +
        "slow (the slowest test files are listed above), or record a new median in .ci/budgets.json with the reason.",
    );
  }
  const load = loadavg()[2];
  const cores = availableParallelism();
  if (load > BUSY_LOAD_PER_CORE * cores) {
    console.error(
      `(not failed: the machine was far busier than one build beside this one — 15-minute load ${load.toFixed(1)} on ${cores} cores)`,
    );
  } else {
    process.exit(1);
  }
}
