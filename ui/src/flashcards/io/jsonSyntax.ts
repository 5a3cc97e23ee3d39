// Where a JSON text first goes wrong. Browsers word JSON.parse errors differently and not all
// give a position, so the dialog finds the spot itself to name its line.

export interface JsonSyntaxError {
  offset: number;
  message: string;
}

/** The first syntax error of `text`, or null when it is valid JSON. */
class SyntaxAt extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}

export function findJsonError(text: string): JsonSyntaxError | null {
  let i = 0;
  const fail = (message: string): never => {
    throw new SyntaxAt(i, message);
  };
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i] ?? '')) i += 1;
  };
  const describe = () => (i >= text.length ? 'the text ends too early' : `unexpected ${JSON.stringify(text[i])}`);
  const literal = (word: string) => {
    if (text.startsWith(word, i)) i += word.length;
    else fail(describe());
  };
  const string = () => {
    i += 1;
    while (i < text.length) {
      const ch = text[i] ?? '';
      if (ch === '"') {
        i += 1;
        return;
      }
      if (ch === '\\') {
        const next = text[i + 1] ?? '';
        if (next === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail('a bad \\u escape');
          i += 6;
        } else if ('"\\/bfnrt'.includes(next) && next !== '') i += 2;
        else fail('a bad escape in a string');
        continue;
      }
      if (ch < ' ') fail('a line break or control character inside a string');
      i += 1;
    }
    fail('a string is not closed');
  };
  const number = () => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (!match || match[0] === '' || match[0] === '-') fail(describe());
    else i += match[0].length;
  };
  const value = (): void => {
    ws();
    const ch = text[i];
    if (ch === '{') {
      i += 1;
      ws();
      if (text[i] === '}') {
        i += 1;
        return;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail(`expected a quoted key, found ${describe().replace('unexpected ', '')}`);
        string();
        ws();
        if (text[i] !== ':') fail(`expected ":", found ${describe().replace('unexpected ', '')}`);
        i += 1;
        value();
        ws();
        if (text[i] === ',') i += 1;
        else if (text[i] === '}') {
          i += 1;
          return;
        } else fail(`expected "," or "}", found ${describe().replace('unexpected ', '')}`);
      }
    }
    if (ch === '[') {
      i += 1;
      ws();
      if (text[i] === ']') {
        i += 1;
        return;
      }
      for (;;) {
        value();
        ws();
        if (text[i] === ',') i += 1;
        else if (text[i] === ']') {
          i += 1;
          return;
        } else fail(`expected "," or "]", found ${describe().replace('unexpected ', '')}`);
      }
    }
    if (ch === '"') return string();
    if (ch === 't') return literal('true');
    if (ch === 'f') return literal('false');
    if (ch === 'n') return literal('null');
    number();
  };
  try {
    value();
    ws();
    if (i < text.length) fail(`${describe()} after the end of the data`);
    return null;
  } catch (error) {
    if (error instanceof SyntaxAt) return { offset: error.offset, message: error.message };
    throw error;
  }
}
