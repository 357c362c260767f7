import { getTableColumns, type InferSelectModel, type Table } from "drizzle-orm";

/**
 * Reads raw rows of `table` (column names as in the database, as `db.execute` returns them: a function's composite
 * result expanded with `(x).*`) as drizzle's select model of it, each value mapped as drizzle maps it.
 */
export function rawRowsOf<T extends Table>(table: T): (row: Record<string, unknown>) => InferSelectModel<T> {
  const columns = Object.entries(getTableColumns(table));
  return (row) => {
    const mapped: Record<string, unknown> = {};
    for (const [key, column] of columns) {
      const value = row[column.name];
      mapped[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
    }
    return mapped as InferSelectModel<T>;
  };
}
