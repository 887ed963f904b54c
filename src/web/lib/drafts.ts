// Unsaved edits kept in localStorage, per page (or per New Page form), so a reload loses nothing.
import type { Metadata } from '../../model.ts';

export interface Draft {
  title: string;
  content: string;
  metadata?: Metadata;
  baseVersion?: number;
  savedAt: string;
}

const KEY = (id: string): string => `kspace:draft:${id}`;

export function readDraft(id: string): Draft | null {
  try {
    const raw = localStorage.getItem(KEY(id));
    if (!raw) return null;
    const d = JSON.parse(raw) as Draft;
    return typeof d.title === 'string' && typeof d.content === 'string' ? d : null;
  } catch {
    return null;
  }
}

export function writeDraft(id: string, d: Omit<Draft, 'savedAt'>): void {
  try {
    localStorage.setItem(KEY(id), JSON.stringify({ ...d, savedAt: new Date().toISOString() }));
  } catch {
    /* storage full or off: nothing to do */
  }
}

export function clearDraft(id: string): void {
  try {
    localStorage.removeItem(KEY(id));
  } catch {
    /* ignore */
  }
}
