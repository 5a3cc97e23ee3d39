// Checks against reference implementations outside the UI (Python from PyPI, in venvs under
// target/), run by `make test-fsrs` (part of `make test`), which installs them first: the browser's
// FSRS optimiser against fsrs-rs-python on the same review log.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.check.ts'],
    environment: 'node',
    testTimeout: 300_000,
  },
});
