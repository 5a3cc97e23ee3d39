// Lighthouse on a shared machine: a trace taken while other work competes for the cores has its
// page's tasks stretched by waiting for a core, and the mobile preset multiplies that wait by four
// into Total Blocking Time. This rewrites such a trace as if the page had had a core to itself:
// each top-level task on a renderer's main thread is shrunk to the CPU time its thread spent in it
// (Chrome's tdur), everything inside it scaled alike; the time between tasks (the network, idle)
// is left as it was. Lighthouse then audits the rewritten trace (lighthouse.bench-e2e.ts,
// LIGHTHOUSE_CPU_TIME=1). The scores are an estimate of a quiet machine's, not a measurement.
import { readFileSync, writeFileSync } from 'node:fs';

export interface TraceEvent {
  ph: string;
  name: string;
  pid: number;
  tid: number;
  ts?: number;
  dur?: number;
  tdur?: number;
  args?: { name?: string };
}

/** What the rewrite did: the main threads' task time before and after, in ms. */
export interface CpuTimeSummary {
  tasks: number;
  wallMs: number;
  cpuMs: number;
}

/** Shrinks every top-level main-thread task of `events` (changed in place) to its thread time. */
export function toCpuTime(events: TraceEvent[]): CpuTimeSummary {
  const thread = (e: TraceEvent) => `${e.pid}:${e.tid}`;
  const mains = new Set(events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map(thread));
  const byThread = new Map<string, TraceEvent[]>();
  for (const e of events) {
    if (e.ph === 'M' || typeof e.ts !== 'number' || !mains.has(thread(e))) continue;
    const list = byThread.get(thread(e));
    if (list) list.push(e);
    else byThread.set(thread(e), [e]);
  }
  const summary: CpuTimeSummary = { tasks: 0, wallMs: 0, cpuMs: 0 };
  for (const list of byThread.values()) {
    const sorted = list.sort((a, b) => (a.ts ?? 0) - (b.ts ?? 0) || (b.dur ?? 0) - (a.dur ?? 0));
    let inside = -Infinity;
    for (const [index, top] of sorted.entries()) {
      const start = top.ts ?? 0;
      if (top.ph !== 'X' || typeof top.dur !== 'number' || start < inside) continue;
      const end = start + top.dur;
      inside = end;
      if (typeof top.tdur !== 'number' || top.dur <= 0) continue;
      const factor = Math.min(1, top.tdur / top.dur);
      summary.tasks += 1;
      summary.wallMs += top.dur / 1000;
      summary.cpuMs += (top.dur * factor) / 1000;
      // Everything that began inside the task (in the original times), the task itself included.
      const within: TraceEvent[] = [];
      for (let next = index; next < sorted.length && (sorted[next]?.ts ?? 0) < end; next += 1) {
        const e = sorted[next];
        if (e) within.push(e);
      }
      for (const e of within) {
        e.ts = start + ((e.ts ?? start) - start) * factor;
        if (typeof e.dur === 'number') e.dur *= factor;
      }
    }
  }
  return summary;
}

/** Rewrites a trace file written by Lighthouse's gather mode (a list of events or {traceEvents}). */
export function traceFileToCpuTime(file: string): CpuTimeSummary {
  const trace = JSON.parse(readFileSync(file, 'utf8')) as TraceEvent[] | { traceEvents: TraceEvent[] };
  const summary = toCpuTime(Array.isArray(trace) ? trace : trace.traceEvents);
  writeFileSync(file, JSON.stringify(trace));
  return summary;
}
