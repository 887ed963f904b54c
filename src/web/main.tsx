import { render } from 'preact';
import { App } from './app.tsx';
import { pageApi, prefetch, spaceApi } from './api/client.ts';
import { interceptLinks, parseRoute } from './router.ts';
import { applyTheme } from './lib/theme.ts';
import { registerWorker } from './lib/offline.ts';
import './styles.css';

applyTheme();

// The session and what the first view needs, asked for at once: a page view's content arrives
// one round trip after the script instead of two (session, then page). The views take these
// answers through get() (api/client.ts).
prefetch('/session');
const first = parseRoute(location.pathname, location.search);
if (first.name === 'page' && first.mode.kind === 'view') {
  prefetch(`${pageApi(first.space, first.path)}?render=html`);
  prefetch(spaceApi(first.space));
}

interceptLinks();
registerWorker();
const root = document.getElementById('app');
if (root) render(<App />, root);
