// The progress page's schedule section: "Optimise my schedule" fits FSRS's parameters to this
// deck's review log in a Worker (optimiseRun.ts), with a progress bar in words and Cancel,
// and shows how well the parameters fit the history before and after (log-loss, RMSE); and the
// deck's desired retention. Both are saved on the deck's review record, which sync carries.
import './OptimiseSchedule.css';
import { useEffect, useRef, useState } from 'react';
import { Gauge, RotateCcw, X } from 'lucide-react';
import { NumberField } from '../lib/NumberField';
import { OptimiseCancelled, optimiseSchedule, type OptimiseRun } from './optimiseRun';
import { MIN_REVIEWS_TO_FIT, MIN_REVIEWS_TO_FIT_ALL, type Fit, type Outcome } from './srs/optimise';
import type { OptimiseStage } from './srs/optimiseProtocol';
import type { ReviewRecord } from './srs/reviewLog';
import { DEFAULT_PARAMS, DEFAULT_RETENTION, MAX_RETENTION, MIN_RETENTION } from './srs/schedule';

interface Props {
  reviews: ReviewRecord;
  /**
   * Saves a change of the deck's settings on its record as stored now (a field left out stays as it
   * is, null is back to the default); an error in words, or null.
   */
  onSave: (change: { params?: readonly number[] | null; retention?: number | null }) => string | null;
}

const percent = (value: number) => Math.round(value * 100);

/** The stage in words and how far along it is (0 to 1). */
export function describeStage(stage: OptimiseStage): { text: string; done: number } {
  switch (stage.stage) {
    case 'download': {
      const mb = (bytes: number) => (bytes / 1_000_000).toFixed(1);
      const share = stage.total > 0 ? stage.loaded / stage.total : 0;
      return { text: `Downloading the optimiser: ${mb(stage.loaded)} of ${mb(stage.total)} MB`, done: 0.2 * share };
    }
    case 'prepare':
      return { text: `Reading ${stage.reviews === 1 ? '1 usable review' : `${stage.reviews} usable reviews`}`, done: 0 };
    case 'fit':
      return { text: `Fitting the parameters: pass ${stage.pass} of ${stage.passes}`, done: 0.2 + (0.75 * stage.pass) / stage.passes };
    case 'check':
      return { text: 'Checking the fit against your history', done: 0.97 };
  }
}

/** The outcome in words. */
export function describeOutcome(outcome: Outcome): string {
  const reviews = outcome.reviews === 1 ? '1 usable review' : `${outcome.reviews} usable reviews`;
  if (outcome.kind === 'too-few') return `Only ${reviews}: at least ${MIN_REVIEWS_TO_FIT} are needed, so the parameters stay as they are.`;
  const part = outcome.partial ? ` With fewer than ${MIN_REVIEWS_TO_FIT_ALL}, only the first four parameters (the starting stabilities) were fitted.` : '';
  return outcome.kind === 'improved'
    ? `New parameters fitted to ${reviews} predict your history better and now schedule this deck.${part}`
    : `The fit to ${reviews} predicts your history no better than the parameters in use, so they stay.${part}`;
}

export function OptimiseSchedule({ reviews, onSave }: Props) {
  const [stage, setStage] = useState<OptimiseStage | null>(null);
  const [result, setResult] = useState<{ outcome: Outcome; error: string | null } | null>(null);
  const [message, setMessage] = useState<{ error: boolean; text: string } | null>(null);
  const run = useRef<OptimiseRun | null>(null);
  useEffect(() => () => run.current?.cancel(), []);
  const own = reviews.params !== undefined;
  const running = stage !== null;

  const start = () => {
    setResult(null);
    setMessage(null);
    setStage({ stage: 'prepare', reviews: 0 });
    const current = reviews.params ?? DEFAULT_PARAMS;
    const started = optimiseSchedule({ log: reviews.log, seeds: reviews.seeds, current }, setStage);
    run.current = started;
    started.result.then(
      ({ outcome }) => {
        run.current = null;
        setStage(null);
        const error = outcome.kind === 'improved' ? onSave({ params: outcome.params }) : null;
        setResult({ outcome, error });
      },
      (error: unknown) => {
        run.current = null;
        setStage(null);
        setMessage({ error: !(error instanceof OptimiseCancelled), text: error instanceof Error ? error.message : String(error) });
      },
    );
  };

  const progress = stage && describeStage(stage);
  return (
    <section className="card optimise" aria-labelledby="optimise-title">
      <h2 id="optimise-title" className="progress-page__heading">
        Your schedule
      </h2>
      <p className="hint">
        FSRS predicts when you would forget each card and brings it back just before. “Optimise my schedule” fits its parameters to this deck’s own review
        history, on this device, as Anki does; new parameters are kept only when they predict your history better.
      </p>
      <p>{own ? 'This deck is scheduled with parameters fitted to its history.' : 'This deck is scheduled with FSRS’s default parameters.'}</p>
      <div className="optimise__actions">
        <button type="button" className="button button--primary" onClick={start} disabled={running}>
          <Gauge aria-hidden="true" size={16} />
          Optimise my schedule
        </button>
        {running && (
          <button type="button" className="button" onClick={() => run.current?.cancel()}>
            <X aria-hidden="true" size={16} />
            Cancel
          </button>
        )}
        {own && !running && (
          <button
            type="button"
            className="button button--quiet"
            onClick={() => {
              const error = onSave({ params: null });
              setResult(null);
              setMessage(error ? { error: true, text: error } : { error: false, text: 'This deck is scheduled with FSRS’s default parameters again.' });
            }}
          >
            <RotateCcw aria-hidden="true" size={16} />
            Use the default parameters
          </button>
        )}
      </div>
      {progress && (
        <div className="optimise__progress">
          <progress id="optimise-progress" max={1} value={progress.done} aria-labelledby="optimise-progress-text" />
          <p id="optimise-progress-text" className="hint" role="status">
            {progress.text}
          </p>
        </div>
      )}
      {result && <OutcomeView outcome={result.outcome} error={result.error} />}
      {message && (
        <p role={message.error ? 'alert' : 'status'} className={message.error ? 'alert' : 'hint'}>
          {message.text}
        </p>
      )}
      <Retention
        value={reviews.retention ?? DEFAULT_RETENTION}
        onSave={(retention) => onSave({ retention: retention === DEFAULT_RETENTION ? null : retention })}
      />
    </section>
  );
}

function OutcomeView({ outcome, error }: { outcome: Outcome; error: string | null }) {
  const row = (label: string, pick: (fit: Fit) => number) =>
    outcome.kind !== 'too-few' && (
      <tr>
        <th scope="row">{label}</th>
        <td>{pick(outcome.before).toFixed(4)}</td>
        <td>{pick(outcome.after).toFixed(4)}</td>
      </tr>
    );
  return (
    <div className="optimise__outcome" role="status">
      <p>{error ?? describeOutcome(outcome)}</p>
      {outcome.kind !== 'too-few' && (
        <table className="optimise__table">
          <caption>How well the parameters predict your {outcome.reviews} usable reviews (lower is better)</caption>
          <thead>
            <tr>
              <th scope="col">Measure</th>
              <th scope="col">Before</th>
              <th scope="col">{outcome.kind === 'improved' ? 'After' : 'Fitted (not kept)'}</th>
            </tr>
          </thead>
          <tbody>
            {row('Log-loss', (fit) => fit.logLoss)}
            {row('RMSE', (fit) => fit.rmse)}
          </tbody>
        </table>
      )}
    </div>
  );
}

function Retention({ value, onSave }: { value: number; onSave: (value: number) => string | null }) {
  const [draft, setDraft] = useState(percent(value));
  const [refused, setRefused] = useState(false);
  const [message, setMessage] = useState<{ error: boolean; text: string } | null>(null);
  return (
    <form
      className="optimise__retention"
      onSubmit={(event) => {
        event.preventDefault();
        if (refused) return;
        const error = onSave(draft / 100);
        setMessage(error ? { error: true, text: error } : { error: false, text: `Saved: cards come back when you would still remember ${draft}% of them.` });
      }}
    >
      <NumberField
        label="Desired retention (%)"
        hint={`The share of cards you should still remember when they come due: higher means more reviews. From ${percent(MIN_RETENTION)} to ${percent(MAX_RETENTION)}, as Anki allows; ${percent(DEFAULT_RETENTION)} by default.`}
        min={percent(MIN_RETENTION)}
        max={percent(MAX_RETENTION)}
        required
        value={draft}
        onChange={(entry) => {
          setRefused(!entry.ok);
          if (entry.ok && entry.value !== undefined) setDraft(entry.value);
          setMessage(null);
        }}
      >
        <button type="submit" className="button" disabled={refused || draft === percent(value)}>
          Save retention
        </button>
      </NumberField>
      <p role="status" className={message?.error ? 'alert' : 'hint'}>
        {message?.text}
      </p>
    </form>
  );
}
