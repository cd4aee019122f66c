/**
 * The tracing exporter's overhead: per rep, the exporting service's turn against the plain one's
 * (same baseline, same machine, same minute), as on ÷ off ratios.
 */
import { type RepRecord, SUMMARY_HEADER, summarize, summaryRow, x } from "./report";

export function exportOverhead(off: readonly RepRecord[], on: readonly RepRecord[], turnsExported: number): string {
  const pairs = on.flatMap((r) => {
    const plain = off.find((o) => o.rep === r.rep);
    return plain ? [{ on: r.service, off: plain.service }] : [];
  });
  const ratio = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined || b === 0 ? undefined : a / b);
  const rows: [string, ReturnType<typeof summarize>][] = [
    ["turn (POST → waiting), exporting ÷ plain", summarize(pairs.map((p) => ratio(p.on.turnMs, p.off.turnMs)))],
    ["first part, exporting ÷ plain", summarize(pairs.map((p) => ratio(p.on.firstPartMs, p.off.firstPartMs)))],
    ["POST /messages response, exporting ÷ plain", summarize(pairs.map((p) => ratio(p.on.postAckMs, p.off.postAckMs)))],
  ];
  const lines = [
    `### Tracing export overhead: ${pairs.length} paired reps, ${turnsExported} chat_turn spans received`,
    "",
    ...SUMMARY_HEADER,
    ...rows.flatMap(([name, s]) => summaryRow(name, s, x)),
  ];
  return `${lines.join("\n")}\n`;
}
