// A labelled select of the deck languages (SPEC.md 9: en, nl, fr, hu).
import { isLanguage, LANGUAGES, type Language } from './deck';

export function LanguageSelect({ label, value, onChange }: { label: string; value: Language; onChange: (value: Language) => void }) {
  return (
    <label className="field">
      {label}
      <select
        className="select"
        value={value}
        onChange={(event) => {
          if (isLanguage(event.target.value)) onChange(event.target.value);
        }}
      >
        {LANGUAGES.map((language) => (
          <option key={language.code} value={language.code}>
            {language.name}
          </option>
        ))}
      </select>
    </label>
  );
}
