export type { Issue } from '../model.ts';
