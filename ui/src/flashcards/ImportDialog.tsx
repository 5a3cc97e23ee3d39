// The Import dialog: paste text or pick a file, choose (or accept the detected) format and its
// separators, see the first rows and any problem with its line, name the deck and pick its
// languages (an Anki package's decks come with their languages guessed, each changeable: see
// ImportDeckList.tsx), then confirm. Parsing is io/importPlan.ts; nothing is stored before Import
// is pressed. On a phone nothing takes the focus that would raise the keyboard before a file is
// chosen; a package shows its format instead of the text formats' select. A package's pictures and
// sounds are stored (media/lifecycle.ts) before its decks, and the dialog says what it brings and
// what it left out.
import './ImportDialog.css';
import { useEffect, useId, useImperativeHandle, useMemo, useRef, useState, type ChangeEvent, type Ref } from 'react';
import { FileUp, X } from 'lucide-react';
import { cardCount, defaultMeta, type Deck, type Language } from './deck';
import { describeProblem } from './io/columns';
import { isBackupZipName, readBackupFile, storeBackupMedia, type BackupMedia } from './media/backupImport';
import { importPackage, isAnkiPackageName, type PackageImport } from './io/apkg/importPackage';
import { mediaInWords, packagePlan, skippedInWords } from './io/apkg/packageSummary';
import { importStoreError, storeFiles, whileImporting } from './media/lifecycle';
import { STAGE_LABELS, STAGE_PROGRESS, type PackageResult, type Stage } from './io/apkg/readPackage';
import {
  DEFAULT_REQUEST,
  DELIMITER_LABELS,
  decksToSave,
  FORMAT_LABELS,
  importBlocker,
  planImport,
  suggestedDeckName,
  reviewsToSave,
  type DelimiterChoice,
  type FormatChoice,
  type ImportPlan,
  type ImportRequest,
} from './io/importPlan';
import type { QuizletCardSeparator, QuizletTermSeparator } from './io/quizlet';
import { ImportDeckList, type DeckLanguages } from './ImportDeckList';
import { LanguageSelect } from './LanguageSelect';
import { deckStore } from './storage';
import { newId } from './uuid';

export interface ImportDialogHandle {
  open(): void;
}

interface Props {
  onImported: (decks: Deck[]) => void;
  ref: Ref<ImportDialogHandle>;
}

const PREVIEW_ROWS = 5;
const PREVIEW_PROBLEMS = 5;

/** Whether typing is the likely way in (a fine pointer): then the paste box takes the focus on open. */
const typesFirst = () => typeof window.matchMedia !== 'function' || window.matchMedia('(hover: hover) and (pointer: fine)').matches;

/** An Anki package being read in the Worker, read, or refused. */
type PackageState = { status: 'reading'; stage: Stage } | { status: 'ready'; result: PackageResult; plan: ImportPlan } | { status: 'error'; message: string };

export function ImportDialog({ onImported, ref }: Props) {
  const dialog = useRef<HTMLDialogElement>(null);
  const textArea = useRef<HTMLTextAreaElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const id = useId();
  const [request, setRequest] = useState<ImportRequest>(DEFAULT_REQUEST);
  const [fileName, setFileName] = useState<string | null>(null);
  /** The name the visitor typed; until then the dialog proposes one (suggestedDeckName). */
  const [typedName, setTypedName] = useState<string | null>(null);
  const [sourceLang, setSourceLang] = useState<Language>(defaultMeta().sourceLang);
  const [targetLang, setTargetLang] = useState<Language>(defaultMeta().targetLang);
  const [saveError, setSaveError] = useState<string | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [pkg, setPkg] = useState<PackageState | null>(null);
  /** Languages the visitor chose for a package's decks, by deck index. */
  const [deckLanguages, setDeckLanguages] = useState<Record<number, DeckLanguages>>({});
  const reading = useRef<PackageImport | null>(null);
  /** A zip backup's checked pictures and sounds, kept when Import is pressed. */
  const [backupMedia, setBackupMedia] = useState<BackupMedia | null>(null);
  /** The package's or backup's pictures and sounds being stored after Import was pressed. */
  const [storing, setStoring] = useState(false);

  const stopReading = () => {
    reading.current?.cancel();
    reading.current = null;
  };
  useEffect(() => stopReading, []);

  const reset = () => {
    stopReading();
    setPkg(null);
    setDeckLanguages({});
    setRequest(DEFAULT_REQUEST);
    setFileName(null);
    setTypedName(null);
    setSaveError(null);
    setFileError(null);
    setBackupMedia(null);
    setStoring(false);
  };

  useImperativeHandle(ref, () => ({
    open() {
      reset();
      dialog.current?.showModal();
      // On a phone the paste box would raise the keyboard before a file is even chosen.
      (typesFirst() ? textArea.current : heading.current)?.focus();
    },
  }));

  const textPlan = useMemo(() => planImport(request, newId), [request]);
  const plan: ImportPlan = pkg?.status === 'ready' ? pkg.plan : pkg ? { status: 'empty' } : textPlan;
  const update = (change: Partial<ImportRequest>) => {
    setSaveError(null);
    setRequest((current) => ({ ...current, ...change }));
  };

  const onFile = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    if (!file) return;
    stopReading();
    if (isAnkiPackageName(file.name)) {
      setFileError(null);
      setSaveError(null);
      setFileName(file.name);
      setDeckLanguages({});
      setPkg({ status: 'reading', stage: 'unpacking' });
      const job = importPackage(file, (stage) => setPkg({ status: 'reading', stage }));
      reading.current = job;
      job.result.then(
        (result) => {
          if (reading.current !== job) return;
          reading.current = null;
          setPkg({ status: 'ready', result, plan: packagePlan(result) });
        },
        (error: unknown) => {
          if (reading.current !== job) return;
          reading.current = null;
          setPkg({ status: 'error', message: error instanceof Error ? error.message : String(error) });
        },
      );
      return;
    }
    setPkg(null);
    setBackupMedia(null);
    if (isBackupZipName(file.name)) {
      try {
        const read = await readBackupFile(file);
        setFileError(null);
        setFileName(file.name);
        setBackupMedia(read.media);
        update({ text: read.text });
      } catch (error) {
        setFileError(error instanceof Error ? error.message : String(error));
      }
      return;
    }
    try {
      const text = await file.text();
      setFileError(null);
      setFileName(file.name);
      update({ text });
    } catch (error) {
      setFileError(`The file could not be read: ${error instanceof Error ? error.message : String(error)}`);
    }
  };

  const close = () => {
    stopReading();
    dialog.current?.close();
  };

  const name = typedName ?? suggestedDeckName(request.text, fileName);
  const needsName = plan.status === 'cards';
  const blocker = storing
    ? 'Storing pictures and sounds…'
    : pkg?.status === 'reading'
      ? 'Reading the Anki package…'
      : pkg?.status === 'error'
        ? 'Choose another file to import.'
        : importBlocker(plan, name);
  const canImport = blocker === null;

  const confirm = async () => {
    if (!canImport || storing) return;
    const meta = { ...defaultMeta(), name, sourceLang, targetLang };
    const chosen = plan.status === 'decks' ? { ...plan, decks: plan.decks.map((deck, index) => ({ ...deck, ...deckLanguages[index] })) } : plan;
    const files = pkg?.status === 'ready' ? pkg.result.media.files : [];
    setSaveError(null);
    setStoring(true);
    // The files first: a deck never refers to a file that is not stored, and a full disk stops
    // the import before any deck is written.
    const result = await whileImporting(async () => {
      try {
        await storeFiles(files);
      } catch (error) {
        return { ok: false as const, error: importStoreError(error) };
      }
      const decks = decksToSave(chosen, meta, deckStore.readIndex(), newId, new Date());
      if (backupMedia && plan.status === 'decks') {
        const kept = await storeBackupMedia(decks, backupMedia);
        if (kept) return { ok: false as const, error: kept };
      }
      const saved = deckStore.importDecks(decks, reviewsToSave(chosen, decks));
      return saved.ok ? { ok: true as const, decks } : saved;
    });
    setStoring(false);
    if (!result.ok) {
      setSaveError(result.error);
      return;
    }
    close();
    onImported(result.decks);
  };

  const format: FormatChoice = request.format;
  const resolved = pkg || textPlan.status === 'empty' ? null : textPlan.format === 'apkg' ? null : textPlan.format;
  // The options of the chosen format show even before there is text to read.
  const shown = format === 'auto' ? resolved : format;
  const taken = new Set(plan.status === 'decks' ? deckStore.readIndex() : []);

  return (
    <dialog
      ref={dialog}
      className="dialog import-dialog"
      aria-labelledby={`${id}-title`}
      onClick={(event) => {
        if (event.target === dialog.current) close();
      }}
    >
      <form
        className="dialog__panel"
        method="dialog"
        onSubmit={(event) => {
          event.preventDefault();
          void confirm();
        }}
      >
        <div className="dialog__header">
          <h2 ref={heading} id={`${id}-title`} tabIndex={-1}>
            Import decks
          </h2>
          <button type="button" className="icon-button" aria-label="Close" onClick={close}>
            <X aria-hidden="true" size={18} />
          </button>
        </div>

        <div className="import-dialog__body">
          <label className="field">
            Paste text
            <textarea
              ref={textArea}
              className="textarea import-dialog__text"
              rows={6}
              value={request.text}
              placeholder={'cat\tchat\ndog\tchien'}
              spellCheck={false}
              onChange={(event) => {
                stopReading();
                setPkg(null);
                setBackupMedia(null);
                setFileName(null);
                update({ text: event.target.value });
              }}
            />
          </label>
          <div className="field">
            <span id={`${id}-file`}>Or choose a file</span>
            <div className="file-picker">
              {/* The input stays in the page (keyboard, screen readers, drops); the label is its face. */}
              <input
                id={`${id}-file-input`}
                className="file-picker__input"
                type="file"
                aria-labelledby={`${id}-file`}
                accept=".json,.zip,.txt,.csv,.tsv,.apkg,.colpkg,text/plain,text/csv,application/json,application/zip"
                onChange={(event) => void onFile(event)}
              />
              <label htmlFor={`${id}-file-input`} className="button file-picker__button" aria-hidden="true">
                <FileUp aria-hidden="true" size={16} />
                Choose file…
              </label>
              <span className="hint file-picker__name">
                {fileName ? `Loaded ${fileName}` : 'JSON or zip backup, Anki (.apkg, .colpkg, text), Quizlet or CSV'}
              </span>
            </div>
            {fileError && <span className="error-text">{fileError}</span>}
            {backupMedia && <span className="hint">{backupMedia.summary}</span>}
          </div>

          <div className="import-dialog__options">
            {pkg ? (
              // A package is read as one: the text formats' select would not apply to it.
              <div className="field">
                <span>Format</span>
                <p className="import-dialog__format">Anki package (decks, cards and reviews)</p>
              </div>
            ) : (
              <label className="field">
                Format
                <select className="select" value={format} onChange={(event) => update({ format: event.target.value as FormatChoice })}>
                  <option value="auto">Detect automatically{format === 'auto' && resolved ? ` (${FORMAT_LABELS[resolved]})` : ''}</option>
                  {(Object.keys(FORMAT_LABELS) as (keyof typeof FORMAT_LABELS)[]).map((key) => (
                    <option key={key} value={key}>
                      {FORMAT_LABELS[key]}
                    </option>
                  ))}
                </select>
              </label>
            )}
            {!pkg && shown === 'delimited' && (
              <label className="field">
                Separator
                <select className="select" value={request.delimiter} onChange={(event) => update({ delimiter: event.target.value as DelimiterChoice })}>
                  <option value="auto">
                    Detect automatically
                    {request.delimiter === 'auto' && plan.status === 'cards' && plan.delimiter ? ` (${DELIMITER_LABELS[plan.delimiter]})` : ''}
                  </option>
                  {(Object.keys(DELIMITER_LABELS) as (keyof typeof DELIMITER_LABELS)[]).map((key) => (
                    <option key={key} value={key}>
                      {DELIMITER_LABELS[key]}
                    </option>
                  ))}
                </select>
              </label>
            )}
            {!pkg && shown === 'quizlet' && (
              <>
                <SeparatorField
                  label="Between term and definition"
                  choices={[
                    ['tab', 'Tab'],
                    ['comma', 'Comma'],
                  ]}
                  value={request.quizlet.term}
                  onChange={(term) => update({ quizlet: { ...request.quizlet, term: term as QuizletTermSeparator } })}
                />
                <SeparatorField
                  label="Between cards"
                  choices={[
                    ['newline', 'New line'],
                    ['semicolon', 'Semicolon'],
                  ]}
                  value={request.quizlet.card}
                  onChange={(card) => update({ quizlet: { ...request.quizlet, card: card as QuizletCardSeparator } })}
                />
              </>
            )}
          </div>

          <div className="import-dialog__preview" aria-live="polite">
            {pkg?.status === 'reading' && (
              <div className="import-dialog__reading">
                <label className="hint" htmlFor={`${id}-progress`}>
                  {STAGE_LABELS[pkg.stage]}
                </label>
                <progress id={`${id}-progress`} className="import-dialog__progress" max={1} value={STAGE_PROGRESS[pkg.stage]} />
              </div>
            )}
            {pkg?.status === 'error' && (
              <p className="alert" role="alert">
                {pkg.message}
              </p>
            )}
            {pkg?.status === 'ready' && (mediaInWords(pkg.result) !== null || skippedInWords(pkg.result).length > 0) && (
              <ul className="hint import-dialog__skipped">
                {[mediaInWords(pkg.result) ?? '', ...skippedInWords(pkg.result)].filter(Boolean).map((line) => (
                  <li key={line}>{line}</li>
                ))}
              </ul>
            )}
            {plan.status === 'error' && (
              <p className="alert" role="alert">
                {plan.error}
              </p>
            )}
            {plan.status === 'cards' && (
              <>
                <p className="hint">
                  {cardCount(plan.cards.length)} to import{plan.cards.length > PREVIEW_ROWS ? `; the first ${PREVIEW_ROWS}:` : ':'}
                </p>
                <CardPreview cards={plan.cards.slice(0, PREVIEW_ROWS)} />
              </>
            )}
            {plan.status === 'decks' && (
              <ImportDeckList
                decks={plan.decks}
                reviews={plan.reviews}
                taken={taken}
                {...(pkg?.status === 'ready' ? { guesses: pkg.result.languages } : {})}
                chosen={deckLanguages}
                onChoose={(index, languages) => setDeckLanguages((current) => ({ ...current, [index]: languages }))}
              />
            )}
            {plan.status !== 'empty' && plan.problems.length > 0 && (
              <div className="alert alert--warning import-dialog__problems">
                <ul>
                  {plan.problems.slice(0, PREVIEW_PROBLEMS).map((problem, index) => (
                    <li key={index}>{describeProblem(problem)}</li>
                  ))}
                </ul>
                {plan.problems.length > PREVIEW_PROBLEMS && <p>…and {plan.problems.length - PREVIEW_PROBLEMS} more.</p>}
              </div>
            )}
          </div>
        </div>

        <div className="import-dialog__footer">
          {needsName && (
            <div className="import-dialog__deck">
              <label className="field import-dialog__name">
                Deck name
                <input
                  className="input"
                  value={name}
                  required
                  aria-describedby={blocker ? `${id}-blocker` : undefined}
                  onChange={(event) => setTypedName(event.target.value)}
                />
              </label>
              <LanguageSelect label="Source language" value={sourceLang} onChange={setSourceLang} />
              <LanguageSelect label="Target language" value={targetLang} onChange={setTargetLang} />
            </div>
          )}

          {saveError && (
            <p className="alert" role="alert">
              {saveError}
            </p>
          )}

          <div className="dialog__actions import-dialog__actions">
            {/* Always there, two lines high: the reason coming and going moves nothing. */}
            <p id={`${id}-blocker`} className="import-dialog__blocker">
              {blocker}
            </p>
            <button type="button" className="button button--quiet" onClick={close}>
              Cancel
            </button>
            <button type="submit" className="button button--primary" disabled={!canImport || storing} aria-describedby={blocker ? `${id}-blocker` : undefined}>
              Import
            </button>
          </div>
        </div>
      </form>
    </dialog>
  );
}

function CardPreview({ cards }: { cards: readonly { line: number; front: string; back: string; pronunciation: string; gender: string; example: string }[] }) {
  const extra = {
    pronunciation: cards.some((card) => card.pronunciation !== ''),
    gender: cards.some((card) => card.gender !== ''),
    example: cards.some((card) => card.example !== ''),
  };
  return (
    <div className="import-dialog__table-wrap">
      <table className="import-dialog__table">
        <thead>
          <tr>
            <th scope="col">Line</th>
            <th scope="col">Front</th>
            <th scope="col">Back</th>
            {extra.pronunciation && <th scope="col">Pronunciation</th>}
            {extra.gender && <th scope="col">Gender</th>}
            {extra.example && <th scope="col">Example</th>}
          </tr>
        </thead>
        <tbody>
          {cards.map((card) => (
            <tr key={card.line}>
              <td>{card.line}</td>
              <td>{card.front}</td>
              <td>{card.back}</td>
              {extra.pronunciation && <td>{card.pronunciation}</td>}
              {extra.gender && <td>{card.gender}</td>}
              {extra.example && <td>{card.example}</td>}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

type Separator = { kind: string; value?: string };

function SeparatorField({
  label,
  choices,
  value,
  onChange,
}: {
  label: string;
  choices: readonly [string, string][];
  value: Separator;
  onChange: (value: Separator) => void;
}) {
  return (
    <div className="import-dialog__separator">
      <label className="field">
        {label}
        <select
          className="select"
          value={value.kind}
          onChange={(event) => onChange(event.target.value === 'custom' ? { kind: 'custom', value: value.value ?? '' } : { kind: event.target.value })}
        >
          {choices.map(([key, text]) => (
            <option key={key} value={key}>
              {text}
            </option>
          ))}
          <option value="custom">Custom</option>
        </select>
      </label>
      {value.kind === 'custom' && (
        <label className="field">
          {`${label} (custom)`}
          <input className="input" value={value.value ?? ''} onChange={(event) => onChange({ kind: 'custom', value: event.target.value })} />
        </label>
      )}
    </div>
  );
}
