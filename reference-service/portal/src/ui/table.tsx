import type { ComponentChildren } from 'preact';

/**
 * A list shown as a table with column headers (`scope="col"`, so screen readers name each cell), or the
 * `empty` sentence when there are no rows. `rows` is `undefined` while loading: nothing is shown.
 */
export function Table({
  columns,
  rows,
  empty,
  children,
  labelledBy,
  testId,
  grouped = false,
}: {
  columns: string[];
  rows: number | undefined;
  empty: string;
  children: ComponentChildren;
  labelledBy?: string;
  testId?: string;
  /** The children are `<tbody>` groups of their own (a row with its detail), not rows. */
  grouped?: boolean;
}) {
  if (rows === undefined) return null;
  if (rows === 0) return <p>{empty}</p>;
  return (
    <table aria-labelledby={labelledBy} data-testid={testId}>
      <thead>
        <tr>
          {columns.map((column) => (
            <th scope="col" key={column}>
              {column}
            </th>
          ))}
        </tr>
      </thead>
      {grouped ? children : <tbody>{children}</tbody>}
    </table>
  );
}
