// A source's login in the editor (issue 36): "Add a login" → a username and password, or a token;
// after a publish "Login saved" with Change and Remove. The password is held in this page's memory
// only (sourceLogin.ts says what is sent and stored). Thin: the rules are sourceLogin.ts's.
import { useLayoutEffect, useRef } from 'react';
import { Check, KeyRound } from 'lucide-react';
import { CheckRow } from './CheckRow';
import { isPlainHttp, type LoginAction, type LoginField, type SourceLogin as Login } from './sourceLogin';

interface Props {
  /** The row's key, for ids. */
  rowKey: number;
  /** The feed's number as the editor shows it. */
  n: number;
  url: string;
  login: Login | undefined;
  plainHttp: boolean;
  /** What is wrong with the login (the server's words or the editor's), if anything. */
  error: string | undefined;
  onLogin: (action: LoginAction) => void;
  onPlainHttp: (allowed: boolean) => void;
  /** The login's inputs are done (left, or Enter): the feed may be read with it. */
  onCommit: () => void;
}

export function SourceLogin({ rowKey, n, url, login, plainHttp, error, onLogin, onPlainHttp, onCommit }: Props) {
  const id = (part: string) => `cal-source-${rowKey}-login-${part}`;
  const errorId = id('error');
  const focusNext = useRef<string | null>(null);
  useLayoutEffect(() => {
    const next = focusNext.current;
    if (next === null) return;
    focusNext.current = null;
    document.getElementById(next)?.focus();
  });
  const act = (action: LoginAction, focus: string) => {
    focusNext.current = id(focus);
    onLogin(action);
  };
  const state = login ?? { state: 'none' };
  const errorText = error && (
    <p id={errorId} className="error-text cal-field-error">
      {error}
    </p>
  );
  const plain = state.state !== 'none' && isPlainHttp(url) && (
    <CheckRow checked={plainHttp} onChange={(e) => onPlainHttp(e.target.checked)}>
      <span>Send the login over plain HTTP: it travels unencrypted, and anyone between this server and the feed’s can read it</span>
    </CheckRow>
  );

  if (state.state === 'none') {
    return (
      <div className="cal-login">
        <button
          id={id('add')}
          type="button"
          className="button cal-login__add"
          onClick={() => act({ type: 'add', method: 'basic' }, 'username')}
          aria-describedby={error ? errorId : undefined}
        >
          <KeyRound aria-hidden="true" size={16} />
          Add a login<span className="visually-hidden"> to feed {n}</span>
        </button>
        {errorText}
      </div>
    );
  }

  if (state.state === 'saved') {
    return (
      <div className="cal-login">
        <div className="cal-login__saved">
          <p className="cal-login__status" id={id('status')}>
            <Check aria-hidden="true" size={16} />
            Login saved
          </p>
          <div className="cal-login__actions">
            <button id={id('change')} type="button" className="button" aria-describedby={id('status')} onClick={() => act({ type: 'change' }, 'username')}>
              Change<span className="visually-hidden"> the login of feed {n}</span>
            </button>
            <button id={id('remove')} type="button" className="button" aria-describedby={id('status')} onClick={() => act({ type: 'remove' }, 'add')}>
              Remove<span className="visually-hidden"> the login of feed {n}</span>
            </button>
          </div>
        </div>
        {plain}
        {errorText}
      </div>
    );
  }

  const field = (name: LoginField, label: string, secret: boolean) => (
    <div className="field">
      <label htmlFor={id(name)}>
        {label}
        <span className="visually-hidden"> of feed {n}</span>
      </label>
      <input
        id={id(name)}
        className="input cal-mono"
        type={secret ? 'password' : 'text'}
        value={state[name]}
        spellCheck={false}
        autoCapitalize="off"
        autoComplete={secret ? 'new-password' : 'off'}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? errorId : undefined}
        onChange={(e) => onLogin({ type: 'set', field: name, value: e.target.value })}
        onBlur={onCommit}
        onKeyDown={(e) => {
          if (e.key === 'Enter') onCommit();
        }}
      />
    </div>
  );
  return (
    <fieldset className="cal-login cal-login--form">
      <legend className="cal-login__legend">
        Login<span className="visually-hidden"> of feed {n}</span>
      </legend>
      <div className="cal-login__methods" role="radiogroup" aria-label={`Kind of login of feed ${n}`}>
        <CheckRow type="radio" name={id('method')} checked={state.method === 'basic'} onChange={() => onLogin({ type: 'method', method: 'basic' })}>
          <span>Username and password</span>
        </CheckRow>
        <CheckRow type="radio" name={id('method')} checked={state.method === 'token'} onChange={() => onLogin({ type: 'method', method: 'token' })}>
          <span>Token</span>
        </CheckRow>
      </div>
      {state.method === 'basic' ? (
        <div className="cal-source__pair">
          {field('username', 'Username', false)}
          {field('password', 'Password', true)}
        </div>
      ) : (
        field('token', 'Token', true)
      )}
      <p className="hint">
        {state.replacing ? 'The saved login stays until you give a new one. ' : ''}
        The login is stored, sealed, when you publish; this browser never keeps it, and no answer shows it again.
      </p>
      {plain}
      {errorText}
      <div className="cal-login__actions">
        <button id={id('cancel')} type="button" className="button" onClick={() => act({ type: 'cancel' }, state.replacing ? 'change' : 'add')}>
          Cancel<span className="visually-hidden"> the login of feed {n}</span>
        </button>
      </div>
    </fieldset>
  );
}
