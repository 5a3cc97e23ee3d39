// The owner page's sections, one per part of GET /api/owner, each a card with its heading. Status
// is said in words beside an icon, never by colour alone; use against a quota in words beside a
// meter. Times are the browser's own, counted from the check's time.
import { useId, type ReactNode } from 'react';
import { CircleCheck, CircleQuestionMark, CircleX, TriangleAlert } from 'lucide-react';
import { describeHealth, feedLabel, FLAG_TEXT, type CalendarStatus } from '../lib/feedHealth';
import type { Backups, Check, CheckStatus, FeedsUse, Owner, OwnerCalendar, SyncUse } from './owner';
import { NotificationsPart } from './NotificationsPart';
import { checksSummary, fileParts, lastRunText, scheduleText, statusLabel, usage, type Usage } from './words';
import { SiteEditor } from './SiteEditor';
import { drillOutcome, drillText, replicationStatus, replicationText, type Replication } from './replication';

const STATUS_ICONS = { ok: CircleCheck, warn: TriangleAlert, fail: CircleX } as const;

/** A status: its icon and its word. */
function Status({ status, label = statusLabel(status) }: { status: CheckStatus | null; label?: string }) {
  const Icon = status ? STATUS_ICONS[status] : CircleQuestionMark;
  return (
    <span className={`owner-status owner-status--${status ?? 'unknown'}`}>
      <Icon aria-hidden="true" size={14} />
      {label}
      <span className="visually-hidden">:</span>
    </span>
  );
}

function Section({ id, title, busy, children }: { id: string; title: string; busy: boolean; children: ReactNode }) {
  return (
    <section className="card owner-section" aria-labelledby={id} aria-busy={busy || undefined}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

/** Said when the server sent nothing (or nothing readable) about a part. */
const NoData = ({ what }: { what: string }) => <p className="hint">The server sent nothing about {what}.</p>;

function Checks({ checks }: { checks: readonly Check[] | null }) {
  return (
    <>
      <p>{checksSummary(checks)}</p>
      {checks && checks.length > 0 && (
        <ul className="owner-list owner-checks">
          {checks.map((check, index) => (
            <li key={index} className="owner-check">
              <Status status={check.status} />
              <span className="owner-check__text">
                <strong>{check.check ?? 'A check'}</strong>
                {check.message && `: ${check.message}`}
              </span>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

function CalendarItem({ calendar, now }: { calendar: OwnerCalendar; now: Date }) {
  const headingId = useId();
  const report = calendar.status ? describeHealth(calendar.status, now) : null;
  // A merged calendar: every feed, the one failing marked, not only the first.
  const sources = calendar.status?.sources ?? [];
  return (
    <article className="owner-calendar" aria-labelledby={headingId}>
      <h3 id={headingId} className="owner-calendar__name">
        {calendar.name ?? 'Untitled calendar'}
        {report?.flagged && (
          <span className="owner-status owner-status--fail">
            <TriangleAlert aria-hidden="true" size={14} />
            {FLAG_TEXT}
          </span>
        )}
      </h3>
      {(calendar.feedPath ?? calendar.url ?? sources.length > 0) && (
        <dl className="owner-facts">
          {calendar.feedPath && (
            <div>
              <dt>Hosted feed</dt>
              <dd>
                <a className="owner-mono" href={calendar.feedPath}>
                  {calendar.feedPath}
                </a>
              </dd>
            </div>
          )}
          {sources.length > 0 ? (
            <div>
              <dt>Sources</dt>
              <dd>
                <Sources sources={sources} />
              </dd>
            </div>
          ) : (
            calendar.url && (
              <div>
                <dt>Source</dt>
                <dd className="owner-mono">{calendar.url}</dd>
              </div>
            )
          )}
        </dl>
      )}
      {report ? (
        <ul className="owner-list owner-calendar__health">
          {[...report.source, ...report.subscribers].map((line) => (
            <li key={line} className={line === report.failure ? 'owner-calendar__failure' : undefined}>
              {line}
            </li>
          ))}
        </ul>
      ) : (
        <p className="hint">The server sent nothing about how this calendar is doing.</p>
      )}
    </article>
  );
}

/** A merged calendar's feeds, numbered as the editor numbers them, each with its label and address. */
function Sources({ sources }: { sources: NonNullable<CalendarStatus['sources']> }) {
  return (
    <ol className="owner-sources">
      {sources.map((source, index) => {
        const failing = (source.upstream?.failures ?? 0) > 0;
        return (
          <li key={`${index}-${source.url}`} className="owner-source">
            <span className="owner-source__name">{feedLabel(source, index + 1)}</span>
            {(source.flagged || failing) && <Status status={source.flagged ? 'fail' : 'warn'} label={source.flagged ? FLAG_TEXT : 'Failing'} />}
            <span className="owner-mono owner-source__url">{source.url}</span>
          </li>
        );
      })}
    </ol>
  );
}

function Calendars({ calendars, now }: { calendars: readonly OwnerCalendar[] | null; now: Date }) {
  if (calendars === null) return <NoData what="calendars" />;
  if (calendars.length === 0) return <p>No calendar is published on this site.</p>;
  return (
    <ul className="owner-list owner-calendars">
      {calendars.map((calendar, index) => (
        <li key={calendar.id ?? `#${index}`}>
          <CalendarItem calendar={calendar} now={now} />
        </li>
      ))}
    </ul>
  );
}

/** One use against its quota: the words, and a meter when both numbers are known. */
function UsageRow({ label, use }: { label: string; use: Usage }) {
  const id = useId();
  return (
    <li className="owner-usage__row">
      <span id={id} className="owner-usage__label">
        {label}
      </span>
      <span className="owner-usage__text">{use.text}</span>
      {use.meter && (
        <meter
          className="owner-meter"
          aria-labelledby={id}
          min={0}
          max={use.meter.max}
          value={use.meter.value}
          low={use.meter.max * 0.75}
          high={use.meter.max * 0.9}
          optimum={0}
        />
      )}
    </li>
  );
}

function Sync({ sync }: { sync: SyncUse | null }) {
  if (sync === null) return <NoData what="sync" />;
  if (sync.enabled === false) return <p>Sync is turned off on this server.</p>;
  return (
    <ul className="owner-list owner-usage">
      <UsageRow label="Vaults" use={usage(sync.vaults, sync.maxVaults, 'count')} />
      <UsageRow label="Shared decks" use={usage(sync.shares, sync.maxShares, 'count')} />
      <UsageRow label="Storage" use={usage(sync.bytes, sync.maxBytes, 'bytes')} />
    </ul>
  );
}

function Feeds({ feeds }: { feeds: FeedsUse | null }) {
  if (feeds === null) return <NoData what="the calendar feeds" />;
  return (
    <ul className="owner-list owner-usage">
      <UsageRow label="Published calendars" use={usage(feeds.calendars, feeds.maxCalendars, 'count')} />
      <UsageRow label="Stored copies" use={usage(feeds.bytes, feeds.maxBytes, 'bytes')} />
    </ul>
  );
}

function BackupFiles({ files, now }: { files: Backups['files']; now: Date }) {
  if (files === null) return <p className="hint">The server did not list the files.</p>;
  if (files.length === 0) return <p className="hint">No backup has been made yet.</p>;
  return (
    <ul className="owner-list owner-files">
      {files.map((file, index) => {
        const { when, size } = fileParts(file, now);
        return (
          <li key={file.name ?? `#${index}`}>
            <span className="owner-mono">{file.name ?? 'A file'}</span>
            <span className="hint">
              {when && file.madeAt && <time dateTime={file.madeAt.toISOString()}>{when}</time>}
              {when && size && ' · '}
              {size}
              {!when && !size && 'No data'}
            </span>
          </li>
        );
      })}
    </ul>
  );
}

function BackupsPart({ backups, now }: { backups: Backups | null; now: Date }) {
  if (backups === null) return <NoData what="backups" />;
  const commandStatus: CheckStatus | null = backups.commandOk === true ? 'ok' : backups.commandOk === false ? 'fail' : null;
  return (
    <>
      <p>{scheduleText(backups)}</p>
      {backups.lastError && (
        <p className="owner-problem">
          <TriangleAlert aria-hidden="true" size={16} />
          <span>The last backup failed: {backups.lastError}</span>
        </p>
      )}
      <dl className="owner-facts">
        {backups.dir && (
          <div>
            <dt>Folder</dt>
            <dd className="owner-mono">{backups.dir}</dd>
          </div>
        )}
        <div>
          <dt>Last run</dt>
          <dd>{backups.lastRunAt ? <time dateTime={backups.lastRunAt.toISOString()}>{lastRunText(backups, now)}</time> : lastRunText(backups, now)}</dd>
        </div>
        {backups.command && (
          <div>
            <dt>Backup command</dt>
            <dd>
              <Status status={commandStatus} label={commandStatus === 'ok' ? 'OK' : commandStatus === 'fail' ? 'Failed' : 'Unknown'} />
              {backups.command}
            </dd>
          </div>
        )}
      </dl>
      <h3 className="owner-files__title">Files</h3>
      <BackupFiles files={backups.files} now={now} />
    </>
  );
}

/** Replication by Litestream: where the replica stands, and the last restore drill. */
function ReplicationPart({ replication, now }: { replication: Replication | null; now: Date }) {
  if (replication === null) return <NoData what="replication" />;
  const status = replicationStatus(replication);
  const drill = replication.drill;
  const drillStatus: CheckStatus | null = drill?.ok === true ? 'ok' : drill?.ok === false ? 'fail' : null;
  return (
    <>
      <p>
        {status && (
          <>
            <Status status={status} />{' '}
          </>
        )}
        {replicationText(replication)}
      </p>
      {replication.enabled === true && (
        <dl className="owner-facts">
          <div>
            <dt>Restore drill</dt>
            <dd>
              {drill && (
                <>
                  <Status status={drillStatus} label={drillOutcome(drill)} />{' '}
                </>
              )}
              {drillText(drill, now)}
            </dd>
          </div>
        </dl>
      )}
    </>
  );
}

export function OwnerSections({ owner, now, busy }: { owner: Owner; now: Date; busy: boolean }) {
  return (
    <div className="owner__sections">
      <Section id="owner-checks" title="Checks" busy={busy}>
        <Checks checks={owner.checks} />
      </Section>
      <Section id="owner-calendars" title="Calendars" busy={busy}>
        <Calendars calendars={owner.calendars} now={now} />
      </Section>
      <Section id="owner-sync" title="Sync" busy={busy}>
        <Sync sync={owner.sync} />
      </Section>
      <Section id="owner-feeds" title="Calendar feeds" busy={busy}>
        <Feeds feeds={owner.feeds} />
      </Section>
      <Section id="owner-backups" title="Backups" busy={busy}>
        <BackupsPart backups={owner.backups} now={now} />
      </Section>
      <Section id="owner-replication" title="Replication" busy={busy}>
        <ReplicationPart replication={owner.replication} now={now} />
      </Section>
      <Section id="owner-notifications" title="Notifications" busy={busy}>
        <NotificationsPart notifications={owner.notifications} />
      </Section>
      {/* The owner edits the landing page (issue 37); its own answers, not the check's. */}
      <Section id="owner-site" title="Site" busy={false}>
        {owner.site ? <SiteEditor initial={owner.site} /> : <NoData what="the site" />}
      </Section>
    </div>
  );
}
