// The owner page's one answer, GET /api/owner (issue 23): the self-check's findings, the published
// calendars with their health, sync's and the calendar feeds' use of their quotas, and the
// backups. Read leniently, in the style of calendars/api.ts: a field that is missing or of the
// wrong kind is no data (null, or an entry left out), never a crash; only an answer that is no
// JSON object at all is refused.
import * as v from 'valibot';
import { CalendarStatusSchema } from '../lib/feedHealth';
import { record, words } from '../lib/schema';
import { instant } from '../lib/when';
import { parseOwnerSite } from './siteForm';
import { NotificationsSchema } from './notifications';
import { ReplicationSchema } from './replication';

const whole = v.fallback(v.nullable(v.pipe(v.number(), v.integer(), v.minValue(0))), null);

const yesNo = v.fallback(v.nullable(v.boolean()), null);

/**
 * A list keeping the items `item` accepts; null when the value is no list (missing included), so
 * "the server sent none" and "the server said nothing" stay apart.
 */
const listOrNull = <T extends v.GenericSchema>(item: T) =>
  v.fallback(
    v.nullable(
      v.pipe(
        v.array(v.unknown()),
        v.transform((items) =>
          items.flatMap((value): v.InferOutput<T>[] => {
            const result = v.safeParse(item, value);
            return result.success ? [result.output] : [];
          }),
        ),
      ),
    ),
    null,
  );

export const CHECK_STATUSES = ['ok', 'warn', 'fail'] as const;
export type CheckStatus = (typeof CHECK_STATUSES)[number];

/** One finding of the self-check; a status this page does not know is null. */
const CheckSchema = v.pipe(
  record({
    status: v.fallback(v.nullable(v.picklist(CHECK_STATUSES)), null),
    check: words,
    message: words,
  }),
  v.check((check) => check.check !== null || check.message !== null),
);

/** A path on this site (never '//host', another origin): what the hosted feed's link may be. */
const SITE_PATH = /^\/(?![/\\])\S*$/;

const CalendarSchema = v.pipe(
  record({
    id: words,
    name: words,
    feedPath: v.fallback(v.nullable(v.pipe(v.string(), v.regex(SITE_PATH))), null),
    /** The upstream feed's address. */
    url: words,
    /** Exactly the answer of GET /api/calendars/{id}/status; null when missing or no object. */
    status: v.fallback(v.nullable(CalendarStatusSchema), null),
  }),
  v.check((calendar) => calendar.id !== null || calendar.name !== null),
);

const SyncSchema = record({
  enabled: yesNo,
  vaults: whole,
  maxVaults: whole,
  shares: whole,
  maxShares: whole,
  bytes: whole,
  maxBytes: whole,
});

const FeedsSchema = record({
  calendars: whole,
  maxCalendars: whole,
  bytes: whole,
  maxBytes: whole,
});

const BackupFileSchema = v.pipe(
  record({ name: words, madeAt: instant, size: whole }),
  v.check((file) => file.name !== null || file.madeAt !== null),
);

const BackupsSchema = record({
  enabled: yesNo,
  dir: words,
  /** As the server writes a duration ("1day", "6h", "1h 30m"); null when backups are off. */
  interval: words,
  keep: whole,
  /** Newest first. */
  files: listOrNull(BackupFileSchema),
  lastRunAt: instant,
  lastError: words,
  /** What the owner's backup command did, in the server's words. */
  command: words,
  commandOk: yesNo,
});

/** A part of the answer, or null when it is missing or no object. */
const part = <T extends v.GenericSchema>(schema: T) => v.fallback(v.nullable(schema), null);

export const OwnerSchema = record({
  version: words,
  checks: listOrNull(CheckSchema),
  calendars: listOrNull(CalendarSchema),
  sync: part(SyncSchema),
  feeds: part(FeedsSchema),
  backups: part(BackupsSchema),
  replication: part(ReplicationSchema),
  /** The site as its editor shows it (null: not sent or not readable). */
  site: v.fallback(
    v.pipe(
      v.optional(v.unknown()),
      v.transform((value) => parseOwnerSite(value)),
    ),
    null,
  ),
  notifications: part(NotificationsSchema),
});

export type Owner = v.InferOutput<typeof OwnerSchema>;
export type Check = NonNullable<Owner['checks']>[number];
export type OwnerCalendar = NonNullable<Owner['calendars']>[number];
export type SyncUse = NonNullable<Owner['sync']>;
export type FeedsUse = NonNullable<Owner['feeds']>;
export type Backups = NonNullable<Owner['backups']>;
export type BackupFile = NonNullable<Backups['files']>[number];

/** The answer read as the module comment says; null when it is not a JSON object at all. */
export function parseOwner(value: unknown): Owner | null {
  const result = v.safeParse(OwnerSchema, value);
  return result.success ? result.output : null;
}
