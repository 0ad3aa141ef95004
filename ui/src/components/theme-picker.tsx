import { THEMES, type Theme } from '../theme';

const WORDS: Record<Theme, string> = { system: 'As the system', light: 'Light', dark: 'Dark' };

/** The three themes as radio buttons: on the settings page and, before sign-in, on the sign-in page. */
export function ThemePicker({ value, onChoose }: { value: Theme; onChoose: (theme: Theme) => void }) {
  return (
    <fieldset class="inline-checks">
      <legend>Theme</legend>
      {THEMES.map((option) => (
        <label class="check" key={option}>
          <input
            type="radio"
            name="theme"
            value={option}
            checked={value === option}
            onChange={() => onChoose(option)}
          />
          {WORDS[option]}
        </label>
      ))}
    </fieldset>
  );
}
