// The browser test harness (docs/web.md, "Browser tests"): import everything from here.
export { DEFAULT_PASSWORD, startAppServer, type AppServer } from './app-server.ts';
export { checkA11y, guard, openBrowser, signedInSession, signIn, type Guard, type Session } from './browser.ts';
export { editorText, pressKeys, recordType, useBrowserFixture, type BrowserFixture, type OpenOptions } from './fixture.ts';
