// Scripted answers for window.prompt / confirm / alert: each dialog takes the next answer in
// line (a string accepts a prompt with that text, true accepts, false dismisses; none left
// dismisses) and is recorded for the test to check.
import type { Dialog, Page } from 'playwright-core';

export interface SeenDialog {
  type: string;
  message: string;
  defaultValue: string;
}

export class DialogScript {
  readonly seen: SeenDialog[] = [];
  private readonly answers: (string | boolean)[] = [];
  private waiters: (() => void)[] = [];

  constructor(page: Page) {
    page.on('dialog', (dialog) => void this.handle(dialog));
  }

  /** Queues answers for the next dialogs. */
  answer(...answers: (string | boolean)[]): this {
    this.answers.push(...answers);
    return this;
  }

  /** Resolves once `count` dialogs have been seen in all. */
  async waitFor(count: number, timeoutMs = 10_000): Promise<SeenDialog[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.seen.length < count) {
      if (Date.now() > deadline) throw new Error(`expected ${count} dialogs, saw ${JSON.stringify(this.seen)}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
    return this.seen;
  }

  last(): SeenDialog | undefined {
    return this.seen[this.seen.length - 1];
  }

  private async handle(dialog: Dialog) {
    this.seen.push({ type: dialog.type(), message: dialog.message(), defaultValue: dialog.defaultValue() });
    const answer = this.answers.shift();
    if (answer === undefined || answer === false) await dialog.dismiss();
    else if (answer === true) await dialog.accept();
    else await dialog.accept(answer);
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}
