import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    // A hook that starts a real service (chromium, redis-server) on a fresh, busy CI machine can take
    // well past vitest's default 10 s the first time (cold disk cache, two CPUs shared by all files).
    hookTimeout: 120_000,
    // Type tests (`*.test-d.ts`) are checked by tsc under vitest: an assertion that does not
    // hold fails its test, where a plain run would only execute it as a no-op.
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
  },
});
