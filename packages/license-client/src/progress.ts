/**
 * The CLI's progress for downloads and uploads, on stderr: a bar redrawn in place on a terminal, and plain lines
 * otherwise (one at each quarter, so a CI log stays short).
 */
export interface ProgressStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KB", "MB", "GB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value >= 100 ? value.toFixed(0) : value.toFixed(1)} ${units[unit]}`;
}

export function progressBar(stream: ProgressStream, label: string) {
  const tty = stream.isTTY === true;
  let lastQuarter = -1;
  let lastDraw = 0;
  let done = false;
  return {
    update(received: number, total: number) {
      if (done || total <= 0) return;
      const ratio = Math.min(1, received / total);
      const percent = Math.floor(ratio * 100);
      const amounts = `${formatBytes(received)} of ${formatBytes(total)}`;
      if (tty) {
        const now = Date.now();
        if (ratio < 1 && now - lastDraw < 80) return;
        lastDraw = now;
        const width = Math.max(10, Math.min(30, (stream.columns ?? 80) - label.length - 32));
        const filled = Math.round(ratio * width);
        stream.write(
          `\r${label} [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${String(percent).padStart(3)} % ${amounts}\u001b[K`,
        );
        if (ratio === 1) {
          stream.write("\n");
          done = true;
        }
        return;
      }
      const quarter = Math.floor(ratio * 4);
      if (quarter === lastQuarter) return;
      lastQuarter = quarter;
      stream.write(`${label}: ${percent} % (${amounts})\n`);
      if (ratio === 1) done = true;
    },
  };
}
