/** Polls `cond` every `everyMs` until it holds or `ms` have passed; returns its last value. */
export async function waitFor(cond: () => boolean, ms = 5000, everyMs = 50): Promise<boolean> {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, everyMs));
  return cond();
}
