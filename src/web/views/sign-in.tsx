// Sign-in: Name, Password, Sign in. A wrong password says so; too many attempts say when to retry.
import { useRef, useState } from 'preact/hooks';
import { ApiError, post } from '../api/client.ts';
import type { Session } from '../api/types.ts';
import { Icon } from '../components/icons.tsx';
import { useTitle } from '../components/ui.tsx';

function signInError(err: unknown): string {
  if (err instanceof ApiError) {
    if (err.status === 401) return 'Wrong name or password.';
    if (err.status === 429) {
      const wait = err.problem.retryAfter ?? 0;
      return `Too many attempts. Try again${wait > 0 ? ` in ${wait} seconds` : ' later'}.`;
    }
    if (err.status === 400) return 'Enter your name and password.';
    return err.message;
  }
  return 'Signing in failed. Try again.';
}

export function SignIn({ next, onSignedIn }: { next: string; onSignedIn: (s: Session) => void }) {
  useTitle('Sign in');
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const passwordField = useRef<HTMLInputElement>(null);
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      const s = await post<Session>('/session', { name: name.trim(), password });
      onSignedIn(s);
    } catch (err) {
      setError(signInError(err));
      setPassword('');
      // The Sign in button was disabled while waiting and lost focus: the person tries again from Password.
      passwordField.current?.focus();
    } finally {
      setBusy(false);
    }
  };
  // What both fields share: they are required, and they point at the one error.
  const shared = { required: true, ...(error ? ({ 'aria-invalid': 'true', 'aria-describedby': 'sign-in-error' } as const) : {}) };
  return (
    <main id="main" class="sign-in">
      <form class="card sign-in-card" onSubmit={submit} aria-labelledby="sign-in-title" data-next={next}>
        <div class="brand big">
          <Icon name="logo" />
          <span>kspace</span>
        </div>
        <h1 id="sign-in-title">Sign in</h1>
        {error && (
          <p class="error-box" role="alert" id="sign-in-error">
            {error}
          </p>
        )}
        <label class="field">
          <span class="label">Name</span>
          <input name="name" autoComplete="username" value={name} onInput={(e) => setName(e.currentTarget.value)} {...shared} autoFocus />
        </label>
        <label class="field">
          <span class="label">Password</span>
          <input
            ref={passwordField}
            name="password"
            type="password"
            autoComplete="current-password"
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
            {...shared}
          />
        </label>
        <button type="submit" class="button primary wide" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
