// The head row of a plain table drawn with the static row classes (app/styles/rows.css.ts,
// decision 043): one `th scope="col"` per column, the numeric ones aligned right.

/**
 * `columns` in order; those also in `right` are aligned right. `corner` leaves an empty first
 * cell, over a column of row heads.
 */
export function ColumnHeads({
  columns,
  right = [],
  corner = false,
}: {
  columns: readonly string[];
  right?: readonly string[];
  corner?: boolean;
}) {
  return (
    <thead>
      <tr className="pd-tr">
        {corner ? <td className="pd-td pd-th" /> : null}
        {columns.map((c) => (
          <th key={c} scope="col" className={right.includes(c) ? "pd-td pd-th pd-right" : "pd-td pd-th"}>
            {c}
          </th>
        ))}
      </tr>
    </thead>
  );
}
