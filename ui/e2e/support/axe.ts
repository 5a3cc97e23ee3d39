// axe-core run inside a page, for the accessibility checks (a11y.e2e.ts sweeps every screen; a
// feature's own suite checks the states only it reaches).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

export async function axe(page: Page): Promise<Violation[]> {
  // Through the DevTools protocol, not a <script> tag: the app's CSP (script-src 'self') stays on.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const run = (window as unknown as { axe: { run: (context: Document, options: object) => Promise<{ violations: Violation[] }> } }).axe.run;
    const result = await run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })),
    }));
  });
}

/** The violations as lines a failing test can print, each under `name`. */
export function describeViolations(name: string, violations: Violation[]): string[] {
  return violations.map(
    (v) => `${name}: ${v.id} (${v.impact ?? '-'}) ${v.help}\n    ${v.nodes.map((n) => `${n.target.join(' ')} — ${n.failureSummary ?? ''}`).join('\n    ')}`,
  );
}
