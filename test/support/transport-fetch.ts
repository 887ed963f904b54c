// The setup file of the vitest project "fetch" (vitest.config.ts): its suites run through app.fetch (docs/testing.md).
process.env.KSPACE_TEST_TRANSPORT = 'fetch';
