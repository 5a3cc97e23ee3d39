// Which feed of a merged calendar an event came from: a small tag on the sample and its preview,
// its name (sources.ts's sourceNames) read out with the feed's number.
import { Rss } from 'lucide-react';

export interface EventSource {
  /** The feed's place in the editor's list, from 1. */
  number: number;
  name: string;
  /** The feed's prefix, put before each of its events' titles ('' when none). */
  prefix?: string;
}

export function SourceTag({ source }: { source: EventSource }) {
  return (
    <p className="cal-source-tag" data-source={source.number}>
      <Rss aria-hidden="true" size={14} />
      <span>
        From <span className="visually-hidden">feed {source.number}, </span>
        <strong className="cal-source-tag__name">{source.name}</strong>
      </span>
    </p>
  );
}
