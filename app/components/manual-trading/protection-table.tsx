// The protection a new position gets, as a two-column table (Manual Trading for manual
// orders, Webhook Config for signals): the lines of protectionLines().
import Table from "@mui/material/Table";
import TableBody from "@mui/material/TableBody";
import TableCell from "@mui/material/TableCell";
import TableRow from "@mui/material/TableRow";

export function ProtectionTable({
  lines,
  label,
  testId,
}: {
  lines: { label: string; value: string; on: boolean }[];
  label: string;
  testId: string;
}) {
  return (
    <Table size="small" aria-label={label}>
      <TableBody>
        {lines.map((line) => (
          <TableRow key={line.label} data-testid={testId}>
            <TableCell sx={{ fontWeight: 600, whiteSpace: "nowrap", verticalAlign: "top" }}>{line.label}</TableCell>
            <TableCell sx={{ color: line.on ? "text.primary" : "text.secondary" }}>{line.value}</TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}
