// /app/p/:space/:path with its modes: view, ?edit, ?history, ?rev=N, ?diff=A..B.
import type { PageMode } from '../router.ts';
import { PageView } from './page-view.tsx';
import { EditorView } from './editor.tsx';
import { HistoryView, RevisionView, DiffView } from './history.tsx';

export function PageRoute({ space, path, mode }: { space: string; path: string; mode: PageMode }) {
  switch (mode.kind) {
    case 'view':
      return <PageView space={space} path={path} />;
    case 'edit':
      return <EditorView space={space} path={path} />;
    case 'history':
      return <HistoryView space={space} path={path} />;
    case 'rev':
      return <RevisionView key={mode.rev} space={space} path={path} rev={mode.rev} />;
    case 'diff':
      return <DiffView key={`${mode.from}..${mode.to}`} space={space} path={path} from={mode.from} to={mode.to} />;
  }
}
