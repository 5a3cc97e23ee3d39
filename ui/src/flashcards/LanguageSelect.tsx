// The deck language field: a native select of every language (languages.ts; the spec's four
// first) with a search box beside it that narrows the list. Typing picks the best match when the
// chosen language no longer matches, Enter picks the best match, ArrowDown moves to the list, and a
// polite live region says what changed. A native select keeps the phone's own picker and every
// screen reader's select behaviour; the legend names the select and the group the search box is in.
import './LanguageSelect.css';
import { useId, useMemo, useState, type KeyboardEvent } from 'react';
import { Search } from 'lucide-react';
import { isLanguageTag, languageOptions, optionsFor, searchLanguages, searchStatus } from './languages';
import type { Language } from './deck';

interface Props {
  label: string;
  value: Language;
  onChange: (value: Language) => void;
}

export function LanguageSelect({ label, value, onChange }: Props) {
  const id = useId();
  const [query, setQuery] = useState('');
  const [status, setStatus] = useState('');
  const matches = useMemo(() => searchLanguages(query), [query]);
  // With no match the whole list stays, so the select never runs empty.
  const shown = useMemo(() => optionsFor(value, matches.length > 0 ? matches : languageOptions()), [value, matches]);

  const choose = (code: string) => {
    if (code !== value && isLanguageTag(code)) onChange(code);
  };

  const search = (next: string) => {
    setQuery(next);
    const found = searchLanguages(next);
    const best = found[0];
    const keep = found.some((entry) => entry.code === value);
    if (best && !keep && next.trim() !== '') {
      choose(best.code);
      setStatus(`${best.name} chosen. ${searchStatus(next, found.length)}`);
    } else setStatus(searchStatus(next, found.length));
  };

  const onSearchKey = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter') {
      // The form has no submit: Enter takes the best match instead.
      event.preventDefault();
      const best = matches[0];
      if (best) {
        choose(best.code);
        setStatus(`${best.name} chosen.`);
      }
    } else if (event.key === 'ArrowDown') {
      event.preventDefault();
      document.getElementById(`${id}-select`)?.focus();
    }
  };

  return (
    // A fieldset: its legend names the select and gives the search box its context, without the
    // search box's own name repeating the label.
    <fieldset className="field language-field">
      <legend id={`${id}-label`} className="language-field__legend">
        {label}
      </legend>
      <div className="language-field__row">
        <span className="language-field__search">
          <Search aria-hidden="true" size={16} className="language-field__icon" />
          <input
            className="input language-field__filter"
            type="search"
            aria-label="Search languages"
            aria-describedby={`${id}-status`}
            aria-controls={`${id}-select`}
            placeholder="Search"
            autoComplete="off"
            spellCheck={false}
            value={query}
            onChange={(event) => search(event.target.value)}
            onKeyDown={onSearchKey}
          />
        </span>
        <select
          id={`${id}-select`}
          aria-labelledby={`${id}-label`}
          className="select language-field__select"
          value={value}
          onChange={(event) => choose(event.target.value)}
        >
          {shown.map((language) => (
            <option key={language.code} value={language.code}>
              {language.name}
            </option>
          ))}
        </select>
      </div>
      <span id={`${id}-status`} className="visually-hidden" aria-live="polite">
        {status}
      </span>
    </fieldset>
  );
}
