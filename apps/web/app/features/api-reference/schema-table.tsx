import { describeType, type JsonSchema } from "./openapi";

/** The fields of an object schema: name, type, required, constraints. */
export function SchemaTable({ schema }: { schema: JsonSchema }) {
  const fields = Object.entries(schema.properties ?? {});
  if (fields.length === 0) return <p className="font-mono text-xs text-fg-muted">{describeType(schema)}</p>;
  return (
    <div className="overflow-x-auto">
      <table className="w-full text-left text-sm">
        <thead className="text-xs text-fg-muted">
          <tr>
            <th scope="col" className="py-1.5 pr-4 font-medium">
              Field
            </th>
            <th scope="col" className="py-1.5 pr-4 font-medium">
              Type
            </th>
            <th scope="col" className="py-1.5 font-medium">
              Notes
            </th>
          </tr>
        </thead>
        <tbody>
          {fields.map(([name, field]) => {
            const notes = [
              schema.required?.includes(name) ? "required" : "optional",
              field.default !== undefined ? `default ${JSON.stringify(field.default)}` : null,
              field.maxLength ? `≤ ${field.maxLength} chars` : null,
            ].filter(Boolean);
            return (
              <tr key={name} className="border-t border-border align-top">
                <td className="py-1.5 pr-4 font-mono text-xs">{name}</td>
                <td className="max-w-md break-words py-1.5 pr-4 font-mono text-xs text-fg-muted">
                  {describeType(field)}
                </td>
                <td className="py-1.5 text-xs text-fg-muted">{notes.join(", ")}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
