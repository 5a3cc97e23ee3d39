// The flashcard scale benchmark: run on demand, never with the e2e suite.
//   HEARTH_BIN=../target/debug/hearth npx vitest run --config e2e/bench/vitest.config.ts
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['e2e/bench/**/*.bench-e2e.ts'],
    environment: 'node',
    testTimeout: 1_200_000,
    hookTimeout: 60_000,
    reporters: ['verbose'],
  },
});
