// The broken links of a space: each source page and the address it points at, with "create this page".
import { get, spaceApi } from '../api/client.ts';
import type { BrokenLink } from '../api/types.ts';
import { AsyncView, Breadcrumbs, Empty, TableHead, useTitle } from '../components/ui.tsx';
import { useAsync } from '../lib/use-async.ts';
import { href } from '../router.ts';

export function BrokenLinks({ space }: { space: string }) {
  useTitle(`Broken links in ${space}`);
  const links = useAsync(() => get<BrokenLink[]>(`${spaceApi(space)}/links/broken?limit=1000`), [space]);
  return (
    <div class="content-wide">
      <Breadcrumbs items={[{ label: 'Home', href: href.home() }, { label: space, href: href.space(space) }, { label: 'Broken links' }]} />
      <h1>Broken links</h1>
      <AsyncView value={links} what="space">
        {(list) =>
          list.length === 0 ? (
            <Empty>No broken links in this space.</Empty>
          ) : (
            <table class="table">
              <TableHead cols={['On page', 'Links to (missing)']} actions="Action" />
              <tbody>
                {list.map((l, i) => (
                  <tr key={i}>
                    <td>
                      <a href={href.page(l.source.space, l.source.path)}>{l.source.path}</a>
                    </td>
                    <td>
                      <span class="broken-target mono">
                        {l.target.space === space ? l.target.path : `${l.target.space}/${l.target.path}`}
                      </span>
                    </td>
                    <td>
                      <a href={href.newPage({ space: l.target.space, path: l.target.path })}>Create this page</a>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </AsyncView>
    </div>
  );
}
