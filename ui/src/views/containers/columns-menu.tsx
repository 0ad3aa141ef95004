import { useState } from 'preact/hooks';
import { errorMessage } from '../../../../shared/error-message';
import { COLUMNS, columns, setColumn } from './columns';

/**
 * "Columns": a popover of checkboxes, one per optional column (the name, the selection and the row
 * menu always show). A choice applies at once and is kept in the person's synced preferences.
 */
export function ColumnsMenu() {
  const [error, setError] = useState<string | undefined>();
  const shown = new Set(columns.value);
  return (
    <>
      <button type="button" class="secondary" popovertarget="list-columns">
        Columns
      </button>
      <div id="list-columns" popover="auto" class="row-menu columns-menu">
        <fieldset>
          <legend>Columns shown</legend>
          {COLUMNS.map((column) => (
            <label key={column.id}>
              <input
                type="checkbox"
                name="column"
                value={column.id}
                checked={shown.has(column.id)}
                onChange={(event) => {
                  setError(undefined);
                  setColumn(column.id, (event.currentTarget as HTMLInputElement).checked).catch((failure) =>
                    setError(`Not kept for your other browsers: ${errorMessage(failure)}`),
                  );
                }}
              />{' '}
              {column.label}
            </label>
          ))}
        </fieldset>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
      </div>
    </>
  );
}
