// Picks the view for a route. Views are keyed by what they show, so moving between two pages
// starts the second one fresh.
import type { Route } from '../router.ts';
import { NotFound } from '../components/ui.tsx';
import { Home } from './home.tsx';
import { SpaceView } from './space.tsx';
import { PageRoute } from './page-route.tsx';
import { NewPage } from './new-page.tsx';
import { RecordsView } from './records.tsx';
import { SearchView } from './search.tsx';
import { BrokenLinks } from './broken-links.tsx';
import { TrashView } from './trash.tsx';
import { Gallery } from './gallery.tsx';
import { Admin } from './admin.tsx';

export function RouteView({ route }: { route: Exclude<Route, { name: 'signIn' }> }) {
  switch (route.name) {
    case 'home':
      return <Home />;
    case 'space':
      return <SpaceView key={route.space} space={route.space} />;
    case 'page':
      return <PageRoute key={`${route.space}/${route.path}`} space={route.space} path={route.path} mode={route.mode} />;
    case 'new':
      return (
        <NewPage key={`${route.space}|${route.template}|${route.path}`} space={route.space} template={route.template} path={route.path} />
      );
    case 'records':
      return <RecordsView key={`${route.space}/${route.type}`} space={route.space} type={route.type} params={route.params} />;
    case 'search':
      return <SearchView q={route.q} params={route.params} />;
    case 'broken':
      return <BrokenLinks key={route.space} space={route.space} />;
    case 'trash':
      return <TrashView key={route.space} space={route.space} />;
    case 'gallery':
      return <Gallery template={route.template} />;
    case 'admin':
      return <Admin />;
    case 'notFound':
      return <NotFound what="address" />;
  }
}
