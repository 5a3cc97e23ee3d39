// A cloze card's front as one of its practice cards shows it: the asked number's texts as a blank
// (or, revealed, highlighted), the other deletions plain. Rules in cloze.ts.
import './ClozeText.css';
import { showCloze } from './cloze';

export function ClozeText({ front, number, revealed }: { front: string; number: number; revealed: boolean }) {
  return (
    <>
      {showCloze(front, number, revealed).map((part, index) =>
        part.role === 'plain' ? (
          <span key={index}>{part.text}</span>
        ) : (
          <span key={index} className={part.role === 'hidden' ? 'cloze__blank' : 'cloze__revealed'}>
            {part.text}
          </span>
        ),
      )}
    </>
  );
}
