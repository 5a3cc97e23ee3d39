// Cards as a table, front and back each in a column of its own, so the two sides never run
// together ("der Hund the dog"): the shared deck's page and the review of an update.
import type { ReactNode } from 'react';

interface Props<T> {
  className: string;
  rows: readonly T[];
  front: (row: T) => ReactNode;
  back: (row: T) => ReactNode;
}

export function CardsTable<T>({ className, rows, front, back }: Props<T>) {
  return (
    <table className={className}>
      <thead>
        <tr>
          <th scope="col">Front</th>
          <th scope="col">Back</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row, index) => (
          <tr key={index}>
            <td>{front(row)}</td>
            <td>{back(row)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
