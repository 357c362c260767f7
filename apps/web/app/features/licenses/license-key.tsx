/**
 * A license key, breakable only between its groups: on a phone "FLOT-ABCDE-…" wraps after a hyphen, never in
 * the middle of a group. The text is the key itself (selecting and copying it gives the exact key).
 */
export function LicenseKey({ value }: { value: string }) {
  const groups = value.split("-");
  return (
    <code className="min-w-0 flex-1 font-mono text-sm" data-testid="license-key">
      {groups.map((group, index) => (
        <span key={index} className="whitespace-nowrap">
          {group}
          {index < groups.length - 1 && (
            <>
              -<wbr />
            </>
          )}
        </span>
      ))}
    </code>
  );
}
