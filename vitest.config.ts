import { configDefaults, defineConfig } from 'vitest/config';

// Two projects: "default" (unit, API, CLI, MCP, binary) and "e2e" (a real Chromium driving the
// web app, test/e2e). `npx vitest run --project default` skips the browser.
export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    maxWorkers: 3,
    projects: [
      {
        extends: true,
        test: { name: 'default', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, 'test/e2e/**'] },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          globalSetup: ['test/e2e/support/global-setup.ts'],
          // Two cores shared with the API suite: a page load plus an axe run took up to a minute at load 30.
          testTimeout: 120_000,
        },
      },
    ],
  },
});
