/** CSV for exports (admin CLI and the admin API): every cell quoted, spreadsheet formulas neutralised. */
export type CsvRow = Record<string, string | number | boolean | null>;

function csvCell(value: CsvRow[string]): string {
  const text = value === null ? "" : String(value);
  // Quote always; neutralise spreadsheet formulas (=, +, -, @) so an export cannot run code when opened.
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return `"${safe.replace(/"/g, '""')}"`;
}

export function toCsv(rows: CsvRow[], headers: string[] = rows[0] ? Object.keys(rows[0]) : []): string {
  if (headers.length === 0) return "";
  return [headers.join(","), ...rows.map((row) => headers.map((h) => csvCell(row[h] ?? null)).join(","))].join("\n");
}
