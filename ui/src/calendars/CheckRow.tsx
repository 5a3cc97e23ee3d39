// A checkbox or radio button and its words in one row that toggles on a click anywhere on it: the
// rows of the filter rules, the options panel and the regex dialog.
import type { InputHTMLAttributes, ReactNode } from 'react';

interface Props extends Omit<InputHTMLAttributes<HTMLInputElement>, 'type' | 'className' | 'children'> {
  type?: 'checkbox' | 'radio';
  children: ReactNode;
}

export function CheckRow({ type = 'checkbox', children, ...input }: Props) {
  return (
    <label className="cal-check">
      <input type={type} {...input} />
      {children}
    </label>
  );
}
