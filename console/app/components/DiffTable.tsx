import type { DiffRow } from '../diff.ts';

/** Two texts side by side, line numbers on each side, changed lines marked by their row's class. */
export function DiffTable({ rows }: { rows: readonly DiffRow[] }) {
  return (
    <table className="diff" aria-label="Side-by-side diff">
      <tbody>
        {rows.map((row, index) => (
          <tr key={index} className={row.kind}>
            <td className="number">{row.leftNumber ?? ''}</td>
            <td className="left">
              <pre>{row.left ?? ''}</pre>
            </td>
            <td className="number">{row.rightNumber ?? ''}</td>
            <td className="right">
              <pre>{row.right ?? ''}</pre>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
