// The app's header: home, the search box (`/` focuses it), new page, gallery, admin, the person and Sign out.
import { useEffect, useState } from 'preact/hooks';
import { SEARCH_INPUT_ID } from '../lib/shortcuts.ts';
import { OPEN_SWITCHER_EVENT } from './quick-switcher.tsx';
import { href, navigate, type Route } from '../router.ts';
import { useSession } from '../session.ts';
import { Icon } from './icons.tsx';

export function Header({ route }: { route: Route }) {
  const { principal, signOut } = useSession();
  const [q, setQ] = useState(route.name === 'search' ? route.q : '');
  useEffect(() => {
    if (route.name === 'search') setQ(route.q);
  }, [route.name === 'search' ? route.q : null]);
  const space = 'space' in route && typeof route.space === 'string' && route.space ? route.space : undefined;
  return (
    <header class="topbar">
      <a class="brand" href={href.home()}>
        <Icon name="logo" />
        <span>kspace</span>
      </a>
      <form
        role="search"
        class="search-form"
        onSubmit={(e) => {
          e.preventDefault();
          navigate(href.search(q.trim()));
        }}
      >
        <Icon name="search" />
        <input
          id={SEARCH_INPUT_ID}
          type="search"
          aria-label="Search"
          placeholder="Search"
          value={q}
          onInput={(e) => setQ(e.currentTarget.value)}
          aria-keyshortcuts="/"
        />
        <kbd class="hint" aria-hidden="true">
          /
        </kbd>
      </form>
      <nav class="topnav" aria-label="Main">
        <button
          type="button"
          class="button ghost small switcher-button"
          aria-keyshortcuts="Control+K Meta+K"
          onClick={() => window.dispatchEvent(new Event(OPEN_SWITCHER_EVENT))}
        >
          Go to…
          <kbd class="hint" aria-hidden="true">
            Ctrl K
          </kbd>
        </button>
        <a href={href.newPage({ space })} class="button primary small" aria-label="New page" aria-keyshortcuts="n">
          <Icon name="plus" />
          <span>New page</span>
        </a>
        <a href={href.gallery()} class="navlink">
          Gallery
        </a>
        {principal.orgAdmin && (
          <a href={href.admin()} class="navlink">
            Admin
          </a>
        )}
      </nav>
      <div class="who">
        <span class="avatar" aria-hidden="true">
          {principal.name.slice(0, 1).toUpperCase()}
        </span>
        <span class="who-name">{principal.name}</span>
        <button type="button" class="button ghost small" onClick={signOut}>
          Sign out
        </button>
      </div>
    </header>
  );
}
