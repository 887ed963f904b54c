import { configDefaults, defineConfig } from 'vitest/config';

// Three projects: "default" (unit, API, CLI, MCP, binary, every API suite over a port), "fetch" (a
// few API suites once more, through the h3 app's fetch without a socket: the transport matrix of
// docs/testing.md) and "e2e" (a real Chromium driving the web app, test/e2e).
// `npx vitest run --project default` skips the browser.
// The API suites run in both transports by `npm test`: the page contract, the input errors, and two
// small ones; cheap (about 5 s of test time through app.fetch). `npm run test:fetch` runs every API suite so.
const FETCH_MATRIX = ['test/api/pages.test.ts', 'test/api/input-messages.test.ts', 'test/api/favourites.test.ts', 'test/api/trash.test.ts'];

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
          name: 'fetch',
          include: [...FETCH_MATRIX],
          setupFiles: ['test/support/transport-fetch.ts'],
        },
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
