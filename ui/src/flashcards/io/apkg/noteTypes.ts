// The note types, deck and deck options an exported package declares, as Anki's legacy collection
// (schema 11) stores them in its `col` row: JSON shaped as Anki 26's own legacy export writes it
// (fields and templates without ids: Anki gives them ids when it imports). Stock types keep
// Anki's names, fields and templates (Basic; Basic (and reversed card); Cloze), so a package's
// notes land in the learner's own stock types; a deck that uses Hearth's optional fields gets
// "Hearth" types with those fields as well. Pure data.

/** The note types an export can use. */
export type NoteKind = 'basic' | 'reversed' | 'cloze' | 'hearth' | 'hearthReversed';

/** Each note type's fields, in order. */
export const NOTE_FIELDS: Record<NoteKind, readonly string[]> = {
  basic: ['Front', 'Back'],
  reversed: ['Front', 'Back'],
  cloze: ['Text', 'Back Extra'],
  hearth: ['Front', 'Back', 'Pronunciation', 'Gender', 'Example'],
  hearthReversed: ['Front', 'Back', 'Pronunciation', 'Gender', 'Example'],
};

const NAMES: Record<NoteKind, string> = {
  basic: 'Basic',
  reversed: 'Basic (and reversed card)',
  cloze: 'Cloze',
  hearth: 'Hearth (with pronunciation, gender, example)',
  hearthReversed: 'Hearth (with pronunciation, gender, example, and reversed card)',
};

/** Anki's stock kinds (originalStockKind): Basic 1, Basic (and reversed card) 2, Cloze 5; 0 for a type of our own. */
const STOCK: Record<NoteKind, number> = { basic: 1, reversed: 2, cloze: 5, hearth: 0, hearthReversed: 0 };

const CSS =
  '.card {\n    font-family: arial;\n    font-size: 20px;\n    line-height: 1.5;\n    text-align: center;\n    color: black;\n    background-color: white;\n}\n';
const CLOZE_CSS = `${CSS}.cloze {\n    font-weight: bold;\n    color: blue;\n}\n.nightMode .cloze {\n    color: lightblue;\n}\n`;
const LATEX_PRE =
  '\\documentclass[12pt]{article}\n\\special{papersize=3in,5in}\n\\usepackage[utf8]{inputenc}\n\\usepackage{amssymb,amsmath}\n\\pagestyle{empty}\n\\setlength{\\parindent}{0in}\n\\begin{document}\n';

/** The optional fields' lines under the answer, each only when the note has it. */
const EXTRAS = ['Pronunciation', 'Gender', 'Example'].map((name) => `{{#${name}}}<br>{{${name}}}{{/${name}}}`).join('');

function templates(kind: NoteKind): [name: string, question: string, answer: string][] {
  switch (kind) {
    case 'basic':
      return [['Card 1', '{{Front}}', '{{FrontSide}}\n\n<hr id=answer>\n\n{{Back}}']];
    case 'reversed':
      return [
        ['Card 1', '{{Front}}', '{{FrontSide}}\n\n<hr id=answer>\n\n{{Back}}'],
        ['Card 2', '{{Back}}', '{{FrontSide}}\n\n<hr id=answer>\n\n{{Front}}'],
      ];
    case 'cloze':
      return [['Cloze', '{{cloze:Text}}', '{{cloze:Text}}<br>\n{{Back Extra}}']];
    case 'hearth':
      return [['Card 1', '{{Front}}', `{{FrontSide}}\n\n<hr id=answer>\n\n{{Back}}${EXTRAS}`]];
    case 'hearthReversed':
      return [
        ['Card 1', '{{Front}}', `{{FrontSide}}\n\n<hr id=answer>\n\n{{Back}}${EXTRAS}`],
        ['Card 2', '{{Back}}', `{{FrontSide}}\n\n<hr id=answer>\n\n{{Front}}${EXTRAS}`],
      ];
  }
}

/** The note type's JSON as schema 11 keeps it (under its id in `col.models`). */
export function noteTypeJson(kind: NoteKind, id: number, deckId: number, modified: number): Record<string, unknown> {
  const fields = NOTE_FIELDS[kind];
  const cloze = kind === 'cloze';
  const tmpls = templates(kind).map(([name, qfmt, afmt], ord) => ({ name, ord, qfmt, afmt, bqfmt: '', bafmt: '', did: null, bfont: '', bsize: 0 }));
  return {
    id,
    name: NAMES[kind],
    type: cloze ? 1 : 0,
    mod: modified,
    usn: -1,
    sortf: 0,
    did: deckId,
    tmpls,
    flds: fields.map((name, ord) => ({
      name,
      ord,
      sticky: false,
      rtl: false,
      font: 'Arial',
      size: 20,
      description: '',
      plainText: false,
      collapsed: false,
      excludeFromSearch: false,
      tag: cloze ? ord : null,
      preventDeletion: cloze && ord === 0,
    })),
    css: cloze ? CLOZE_CSS : CSS,
    latexPre: LATEX_PRE,
    latexPost: '\\end{document}',
    latexsvg: false,
    // Which fields each template needs to make a card (Anki works this out again on import).
    req: cloze ? [[0, 'any', [0]]] : tmpls.map((template) => [template.ord, 'any', [template.ord === 0 ? 0 : 1]]),
    originalStockKind: STOCK[kind],
  };
}

/** A normal deck's JSON (`col.decks`), using the options `configId`. */
export function deckJson(id: number, name: string, description: string, configId: number, modified: number): Record<string, unknown> {
  return {
    id,
    mod: modified,
    name,
    usn: -1,
    lrnToday: [0, 0],
    revToday: [0, 0],
    newToday: [0, 0],
    timeToday: [0, 0],
    collapsed: false,
    browserCollapsed: false,
    desc: description,
    dyn: 0,
    conf: configId,
    extendNew: 0,
    extendRev: 0,
    reviewLimit: null,
    newLimit: null,
    reviewLimitToday: null,
    newLimitToday: null,
    desiredRetention: null,
  };
}

export interface DeckOptions {
  name: string;
  newPerDay: number;
  /** FSRS desired retention (0.7 to 0.97). */
  retention: number;
  /** FSRS-6 parameters (21 numbers). */
  params: readonly number[];
}

/**
 * Deck options (`col.dconf`) as Anki's defaults, with the deck's daily new cards, desired
 * retention and FSRS-6 parameters; learning steps as Hearth's scheduler uses them (1 and 10
 * minutes; relearning 10 minutes).
 */
export function deckConfigJson(id: number, options: DeckOptions, modified: number): Record<string, unknown> {
  return {
    id,
    mod: modified,
    name: options.name,
    usn: -1,
    maxTaken: 60,
    autoplay: true,
    timer: 0,
    replayq: true,
    new: { bury: false, delays: [1.0, 10.0], initialFactor: 2500, ints: [1, 4, 0], order: 1, perDay: options.newPerDay },
    rev: { bury: false, ease4: 1.3, ivlFct: 1.0, maxIvl: 36500, perDay: 9999, hardFactor: 1.2 },
    lapse: { delays: [10.0], leechAction: 1, leechFails: 8, minInt: 1, mult: 0.0 },
    dyn: false,
    newMix: 0,
    newPerDayMinimum: 0,
    interdayLearningMix: 0,
    reviewOrder: 0,
    newSortOrder: 0,
    newGatherPriority: 0,
    buryInterdayLearning: false,
    fsrsWeights: [],
    fsrsParams5: [],
    fsrsParams6: [...options.params],
    desiredRetention: options.retention,
    ignoreRevlogsBeforeDate: '',
    easyDaysPercentages: [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
    stopTimerOnAnswer: false,
    secondsToShowQuestion: 0.0,
    secondsToShowAnswer: 0.0,
    questionAction: 0,
    answerAction: 0,
    waitForAudio: true,
    sm2Retention: 0.9,
    weightSearch: '',
  };
}

/**
 * The collection's settings (`col.conf`): the v3 scheduler with FSRS, and days that start at
 * midnight (`rollover` 0) in the exporting browser's time zone (`creationOffset`/`localOffset`,
 * minutes west of UTC as `Date.getTimezoneOffset` gives them), so the day numbers the package's
 * review cards are due on are the days Hearth counts; Anki moves them to its own collection's
 * days when it imports.
 */
export function collectionConfigJson(offsetMinutes: number, noteTypeId: number, deckId: number): Record<string, unknown> {
  return {
    curDeck: deckId,
    curModel: noteTypeId,
    estTimes: true,
    nextPos: 1,
    sortBackwards: false,
    sched2021: true,
    activeDecks: [deckId],
    addToCur: true,
    schedVer: 2,
    sortType: 'noteFld',
    timeLim: 0,
    collapseTime: 1200,
    newSpread: 0,
    dayLearnFirst: false,
    dueCounts: true,
    rollover: 0,
    creationOffset: offsetMinutes,
    localOffset: offsetMinutes,
    fsrs: true,
  };
}
