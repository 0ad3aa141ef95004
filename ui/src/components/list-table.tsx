import type { ComponentChildren } from 'preact';

/** One column of a `ListTable`: its header, and what each row shows under it. */
export interface ListColumn<T> {
  label: string;
  /** A header for screen readers only (the actions column): the cell speaks for itself on screen. */
  hiddenLabel?: boolean;
  class?: string;
  /** The cell's `data-field`, for a cell that tests and links find by what it holds. */
  field?: string;
  cell: (row: T) => ComponentChildren;
}

interface ListTableProps<T> {
  columns: readonly ListColumn<T>[];
  rows: readonly T[];
  /** The row's identity: its Preact key, and the value of the `rowAttribute` that finds it (tests, links). */
  rowKey: (row: T) => string;
  rowAttribute: `data-${string}`;
  /** The `rowAttribute`'s value when it is not the key (a name that only the key makes unique). */
  rowValue?: (row: T) => string;
  /** The id of the heading that names the table. */
  labelledBy?: string;
}

/**
 * A `table.list` (styles.css): a table on a wide screen, a card a row on a narrow one, where each
 * cell's `data-label` stands in for its column header.
 */
export function ListTable<T>({ columns, rows, rowKey, rowAttribute, rowValue, labelledBy }: ListTableProps<T>) {
  return (
    <table class="list" aria-labelledby={labelledBy}>
      <thead>
        <tr>
          {columns.map((column) => (
            <th key={column.label} scope="col">
              {column.hiddenLabel ? <span class="visually-hidden">{column.label}</span> : column.label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => {
          const key = rowKey(row);
          return (
            <tr key={key} {...{ [rowAttribute]: rowValue ? rowValue(row) : key }}>
              {columns.map((column) => (
                <td key={column.label} data-label={column.label} data-field={column.field} class={column.class}>
                  {column.cell(row)}
                </td>
              ))}
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
