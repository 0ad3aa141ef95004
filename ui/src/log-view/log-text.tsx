import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';
import { parseAnsi, plainText } from './ansi';
import { prettyJson } from './json-line';
import './log-view.css';

/** How the person reads a log: a search (case-insensitive, plain text) and JSON lines indented. */
export interface LogReading {
  query: string;
  pretty: boolean;
}

/** Whether a line holds the search, escapes removed (what is on screen is what is searched). */
export function lineMatches(line: string, query: string): boolean {
  return query === '' || plainText(line).toLowerCase().includes(query.toLowerCase());
}

/** The search's occurrences in one run of text, marked. */
function marked(text: string, query: string): ComponentChildren {
  if (!query) return text;
  const parts: ComponentChildren[] = [];
  const lower = text.toLowerCase();
  const needle = query.toLowerCase();
  let from = 0;
  for (let at = lower.indexOf(needle); at !== -1; at = lower.indexOf(needle, from)) {
    if (at > from) parts.push(text.slice(from, at));
    parts.push(<mark key={at}>{text.slice(at, at + needle.length)}</mark>);
    from = at + needle.length;
  }
  if (from < text.length) parts.push(text.slice(from));
  return parts;
}

/**
 * One log line as a terminal shows it: ANSI colours as classes, a JSON line indented when asked,
 * the search marked. Always text: nothing in a line is read as markup.
 */
export function LogText({ line, reading }: { line: string; reading: LogReading }) {
  const json = reading.pretty ? prettyJson(plainText(line)) : undefined;
  if (json !== undefined) return <span class="log-json">{marked(json, reading.query)}</span>;
  return (
    <span class="log-text">
      {parseAnsi(line).map((segment, index) =>
        segment.classes ? (
          // Runs have no identity of their own: their place in the line is their key.
          <span key={index} class={segment.classes}>
            {marked(segment.text, reading.query)}
          </span>
        ) : (
          marked(segment.text, reading.query)
        ),
      )}
    </span>
  );
}

interface LogControlsProps {
  reading: LogReading;
  onChange: (reading: LogReading) => void;
  /** Lines shown (matching the search) and lines held. */
  shown: number;
  total: number;
}

/** The search field and the JSON switch above a log, with how many lines the search kept. */
export function LogControls({ reading, onChange, shown, total }: LogControlsProps) {
  const id = useId();
  return (
    <div class="log-controls">
      <label for={`${id}-search`}>Search the log</label>
      <input
        id={`${id}-search`}
        type="search"
        value={reading.query}
        aria-describedby={`${id}-count`}
        onInput={(event) => onChange({ ...reading, query: event.currentTarget.value })}
      />
      <label class="check">
        <input
          type="checkbox"
          checked={reading.pretty}
          onChange={(event) => onChange({ ...reading, pretty: event.currentTarget.checked })}
        />
        Pretty-print JSON
      </label>
      <span id={`${id}-count`} class="hint" data-log-count>
        {reading.query ? `${shown} of ${total} lines match.` : `${total} lines.`}
      </span>
    </div>
  );
}
