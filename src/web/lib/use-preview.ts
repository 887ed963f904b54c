// The live preview: POST /render (the same renderer as the page view), debounced.
import { useEffect, useRef, useState } from 'preact/hooks';
import { post } from '../api/client.ts';

export function usePreview(space: string, path: string, content: string, delay = 350): { html: string; error: string } {
  const [state, setState] = useState({ html: '', error: '' });
  const seq = useRef(0);
  useEffect(() => {
    const mine = ++seq.current;
    const t = setTimeout(() => {
      post<{ html: string }>('/render', { space, path: path || 'untitled', content }).then(
        (r) => {
          if (seq.current === mine) setState({ html: r.html, error: '' });
        },
        (err: unknown) => {
          if (seq.current === mine) setState((s) => ({ html: s.html, error: err instanceof Error ? err.message : 'Preview failed' }));
        },
      );
    }, delay);
    return () => clearTimeout(t);
  }, [space, path, content]);
  return state;
}
