/** The parts every settings section shares: its last error, and its table of rows. */
import type { ReactNode } from "react";

export function SectionError({ error }: { error: string | null }) {
  if (!error) return null;
  return (
    <p role="alert" className="error">
      {error}
    </p>
  );
}

/** A table with these column headings ("" for an actions column) over `children` rows. */
export function SettingsTable({ columns, children }: { columns: readonly string[]; children: ReactNode }) {
  return (
    <table>
      <thead>
        <tr>
          {columns.map((c, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: headings are fixed, and "" may repeat
            <th key={i}>{c}</th>
          ))}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}
