// The signed-in person, shared by every view.
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Principal } from './api/types.ts';

interface SessionState {
  principal: Principal;
  signOut: () => void;
}
export const SessionContext = createContext<SessionState | null>(null);

export function useSession(): SessionState {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside a signed-in app');
  return s;
}
