import { FastResponse } from 'srvx';

// The answer the h3 app gives on a replica when a read would have to write: never sent as it is.
// The replica's handler (replica.ts) sees it in writeHead and forwards the request instead.
const FORWARD_MARK = 'x-kspace-forward-to-primary';

export function forwardToPrimary(): Response {
  return new FastResponse(null, { status: 503, headers: { [FORWARD_MARK]: '1' } });
}

/** Whether writeHead's arguments (status, [message], headers) are the mark's. */
export function isForwardMark(status: unknown, rest: unknown[]): boolean {
  if (status !== 503) return false;
  const h = rest[rest.length - 1];
  if (Array.isArray(h)) {
    for (let i = 0; i < h.length; i += 2) if (String(h[i]).toLowerCase() === FORWARD_MARK) return true;
    return false;
  }
  return !!h && typeof h === 'object' && FORWARD_MARK in h;
}
