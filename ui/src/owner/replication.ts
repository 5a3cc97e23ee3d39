// The owner page's replication part (issue 37): whether Litestream replicates the database, how
// far behind the replica is (the server measures it every minute), and the last restore
// drill. Read leniently like the rest of the answer (owner.ts); the words are pure, the clock
// comes in.
import * as v from 'valibot';
import { record, words } from '../lib/schema';
import { instant, type WhenOptions } from '../lib/when';
import { whenText } from './words';

const yesNo = v.fallback(v.nullable(v.boolean()), null);
const amount = v.fallback(v.nullable(v.pipe(v.number(), v.minValue(0))), null);

const DrillSchema = record({
  at: instant,
  ok: yesNo,
  /** What the drill found, in the server's words. */
  message: words,
  tookMs: amount,
});

export const ReplicationSchema = record({
  enabled: yesNo,
  /** The replica's address without its query. */
  replica: words,
  measuredAt: instant,
  /** How long the oldest write the replica lacks has waited; 0: it holds every write. */
  behindSeconds: amount,
  measureError: words,
  drill: v.fallback(v.nullable(DrillSchema), null),
});

export type Replication = v.InferOutput<typeof ReplicationSchema>;
export type Drill = NonNullable<Replication['drill']>;

/** Seconds as people say them: "3 seconds", "2 minutes", "1 hour". */
function span(seconds: number): string {
  const [n, unit] =
    seconds < 120 ? [Math.round(seconds), 'second'] : seconds < 7200 ? [Math.round(seconds / 60), 'minute'] : [Math.round(seconds / 3600), 'hour'];
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}

/** Whether the database is replicated and where the replica stands, in one sentence. */
export function replicationText(replication: Replication): string {
  if (replication.enabled === false) {
    return 'Not replicated: what was written since the last backup would be lost with the disk. README.md, “Replication with Litestream”, sets it up.';
  }
  const where = replication.replica ? `Replicated to ${replication.replica} by Litestream` : 'Replicated by Litestream';
  if (replication.measureError) return `${where}, but where the replica stands could not be read: ${replication.measureError}`;
  const behind = replication.behindSeconds;
  if (behind === null) return `${where}; not measured yet.`;
  if (behind < 1) return `${where}; the replica holds every write.`;
  return `${where}; the replica is ${span(behind)} behind.`;
}

/** The status the replica's position earns: as the doctor judges it (30 seconds, 5 minutes). */
export function replicationStatus(replication: Replication): 'ok' | 'warn' | 'fail' | null {
  if (replication.enabled !== true) return null;
  if (replication.measureError) return 'fail';
  const behind = replication.behindSeconds;
  if (behind === null) return null;
  return behind > 300 ? 'fail' : behind > 30 ? 'warn' : 'ok';
}

/** The last drill's outcome in a word, said beside its status icon. */
export function drillOutcome(drill: Drill): string {
  return drill.ok === true ? 'Passed' : drill.ok === false ? 'Failed' : 'Ran';
}

/** The last restore drill: when, how long, what it found (after its outcome word), or that none ran. */
export function drillText(drill: Drill | null, now: Date, options: WhenOptions = {}): string {
  if (drill === null) return 'No restore drill yet: the first runs a few minutes after the server starts, then once a week.';
  const when = drill.at ? whenText(drill.at, now, options) : 'At a time not given';
  const took = drill.tookMs === null ? '' : `, in ${(drill.tookMs / 1000).toFixed(1)} s`;
  return `${when}${took}${drill.message ? `: ${drill.message}` : '.'}`;
}
