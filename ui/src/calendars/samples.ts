// Browsing sample events: the server sends events a page at a time with the true total, so the
// counter reads n/total over the whole feed and moving past the loaded page asks for another.

export type SampleEvent = Record<string, string>;

/** Events asked for per page of /api/feed. */
export const PAGE_SIZE = 100;

export interface Samples {
  /** The true number of events in the feed. */
  total: number;
  /** 0-based index of the sample shown, over the whole feed. */
  index: number;
  /** Index of the first event of the loaded page. */
  offset: number;
  events: SampleEvent[];
}

export interface Page {
  total: number;
  offset: number;
  events: SampleEvent[];
}

/** The first event becomes the sample (SPEC.md 4: the counter resets to 1). */
export function firstSample(page: Page): Samples {
  return withPage(page, page.offset);
}

/** A freshly loaded page showing `index`, clamped to the feed (it may have shrunk meanwhile). */
export function withPage(page: Page, index: number): Samples {
  const total = Math.max(0, page.total);
  return { total, index: Math.max(0, Math.min(index, total - 1)), offset: page.offset, events: page.events };
}

export function currentEvent(samples: Samples): SampleEvent | undefined {
  return samples.events[samples.index - samples.offset];
}

export function canMove(samples: Samples, delta: number): boolean {
  const next = samples.index + delta;
  return samples.total > 0 && next >= 0 && next < samples.total;
}

/** The first index of the page holding `index`. */
export function pageOffset(index: number, pageSize = PAGE_SIZE): number {
  return Math.floor(index / pageSize) * pageSize;
}

export type Move = { kind: 'none' } | { kind: 'show'; samples: Samples } | { kind: 'fetch'; index: number; offset: number };

/** Where prev (-1) or next (+1) leads: nowhere at the ends, the loaded page, or a page to fetch. */
export function move(samples: Samples, delta: number, pageSize = PAGE_SIZE): Move {
  if (!canMove(samples, delta)) return { kind: 'none' };
  const index = samples.index + delta;
  const inPage = index >= samples.offset && index < samples.offset + samples.events.length;
  if (inPage) return { kind: 'show', samples: { ...samples, index } };
  return { kind: 'fetch', index, offset: pageOffset(index, pageSize) };
}

/** 'n/total', 1-based; '0/0' for a feed without events. */
export function counter(samples: Samples | null): string {
  if (!samples || samples.total === 0) return '0/0';
  return `${samples.index + 1}/${samples.total}`;
}

/** An event's keys with the five mapped fields first (in mapping order), then the rest as sent. */
export function orderedKeys(event: SampleEvent, first: readonly string[]): string[] {
  const keys = Object.keys(event);
  return [...first.filter((key) => key in event), ...keys.filter((key) => !first.includes(key))];
}
