import { useState } from 'preact/hooks';

/** Copies a value to the clipboard and says so; where the clipboard is refused, says to select it. */
export function CopyButton({ value, label }: { value: string; label: string }) {
  const [said, setSaid] = useState('');
  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setSaid('Copied.');
    } catch {
      setSaid('The browser refused the clipboard: select the text and copy it.');
    }
  }
  return (
    <span class="copy">
      <button type="button" class="secondary" onClick={copy}>
        {label}
      </button>
      <span role="status">{said}</span>
    </span>
  );
}
