import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { drillOutcome, drillText, replicationStatus, replicationText, ReplicationSchema } from './replication';

const read = (value: unknown) => v.parse(ReplicationSchema, value);
const NOW = new Date('2026-11-27T12:00:00Z');

describe('the replication part', () => {
  it('says when the database is not replicated', () => {
    const off = read({ enabled: false, replica: null, measuredAt: null, behindSeconds: null, measureError: null, drill: null });
    expect(replicationText(off)).toMatch(/^Not replicated: /);
    expect(replicationStatus(off)).toBeNull();
  });

  it('says where the replica stands, judged as the doctor judges it', () => {
    const at = (behindSeconds: number | null, measureError: string | null = null) =>
      read({ enabled: true, replica: 's3://bucket/hearth', measuredAt: '2026-11-27T11:59:50Z', behindSeconds, measureError, drill: null });
    expect(replicationText(at(0))).toBe('Replicated to s3://bucket/hearth by Litestream; the replica holds every write.');
    expect(replicationStatus(at(0))).toBe('ok');
    expect(replicationText(at(45))).toBe('Replicated to s3://bucket/hearth by Litestream; the replica is 45 seconds behind.');
    expect(replicationStatus(at(45))).toBe('warn');
    expect(replicationText(at(900))).toBe('Replicated to s3://bucket/hearth by Litestream; the replica is 15 minutes behind.');
    expect(replicationStatus(at(900))).toBe('fail');
    expect(replicationText(at(null))).toMatch(/not measured yet\.$/);
    expect(replicationText(at(null, 'litestream ltx failed: no such bucket'))).toMatch(/could not be read: litestream ltx failed: no such bucket$/);
    expect(replicationStatus(at(null, 'x'))).toBe('fail');
  });

  it('says the last drill, and reads a broken one as no data', () => {
    const r = read({
      enabled: true,
      replica: 'file:///mnt/r',
      measuredAt: null,
      behindSeconds: 0,
      measureError: null,
      drill: { at: '2026-11-27T11:00:00Z', ok: true, message: 'restored the replica and checked it: sound', tookMs: 1234 },
    });
    const drill = r.drill;
    if (drill === null) throw new Error('the drill was read as none');
    expect(drillText(drill, NOW, { timeZone: 'UTC' })).toBe('27 November, 11:00 (1 hour ago), in 1.2 s: restored the replica and checked it: sound');
    expect(drillOutcome(drill)).toBe('Passed');
    expect(drillOutcome({ ...drill, ok: false })).toBe('Failed');
    expect(drillText(null, NOW)).toMatch(/^No restore drill yet/);
    expect(read({ enabled: 'yes', behindSeconds: -1, drill: 7 })).toMatchObject({ enabled: null, behindSeconds: null, drill: null });
  });
});
