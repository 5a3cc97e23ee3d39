// Typing practice: the learner types the answer before flipping; on Enter the answer is compared
// (accent- and case-insensitively unless strict), the difference shows character by character,
// and the page suggests the matching grade without choosing it. Rules in srs/answer.ts.
import './TypeAnswer.css';
import { useId, useState, type Ref } from 'react';
import { diffAnswer, isCorrect, type DiffPart } from './srs/answer';
import { expectedAnswer, type PracticeItem } from './practice';

interface Props {
  item: PracticeItem;
  /** The answer's language label, e.g. 'FR'. */
  language: string;
  strict: boolean;
  onChecked: (correct: boolean) => void;
  ref: Ref<HTMLInputElement>;
}

export function TypeAnswer({ item, language, strict, onChecked, ref }: Props) {
  const id = useId();
  const [typed, setTyped] = useState('');
  const [result, setResult] = useState<{ correct: boolean; parts: DiffPart[] } | null>(null);
  // A cloze card is answered with its hidden text, not the whole revealed sentence.
  const answer = expectedAnswer(item);

  return (
    <form
      className="type-answer"
      onSubmit={(event) => {
        event.preventDefault();
        const correct = isCorrect(typed, answer, { strict });
        setResult({ correct, parts: diffAnswer(typed, answer, { strict }) });
        onChecked(correct);
      }}
    >
      <label className="field type-answer__field" htmlFor={`${id}-input`}>
        Your answer ({language})
      </label>
      <div className="type-answer__row">
        <input
          ref={ref}
          id={`${id}-input`}
          className="input"
          value={typed}
          autoComplete="off"
          autoCapitalize="off"
          spellCheck={false}
          lang={language.toLowerCase()}
          readOnly={result !== null}
          onChange={(event) => setTyped(event.target.value)}
        />
        <button type="submit" className="button" disabled={result !== null}>
          Check
        </button>
      </div>
      <div role="status" className="type-answer__result">
        {result && (
          <>
            <p className={result.correct ? 'type-answer__verdict type-answer__verdict--right' : 'type-answer__verdict type-answer__verdict--wrong'}>
              {result.correct ? 'Correct.' : 'Not quite.'} The answer is “{answer}”.
            </p>
            {!result.parts.every((part) => part.kind === 'same') && (
              <p className="type-answer__diff" aria-label="Difference, character by character">
                {result.parts.map((part, index) =>
                  part.kind === 'same' ? (
                    <span key={index} className="diff diff--same">
                      {part.text}
                    </span>
                  ) : part.kind === 'close' ? (
                    <mark key={index} className="diff diff--close" title="Another accent or capital">
                      {part.text}
                    </mark>
                  ) : part.kind === 'missing' ? (
                    <ins key={index} className="diff diff--missing" title="Missing from your answer">
                      {part.text}
                    </ins>
                  ) : (
                    <del key={index} className="diff diff--extra" title="Not in the answer">
                      {part.text}
                    </del>
                  ),
                )}
              </p>
            )}
          </>
        )}
      </div>
    </form>
  );
}
