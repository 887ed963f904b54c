// Signing in as the web app does: POST /session with a name and a password (docs/security.md).

/** POST /session at `base` as the sign-in form sends it (`headers` added): fetch's answer, cookies and all. */
export function postSession(base: string, name: string, password: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${base}/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ name, password }),
  });
}
