// vitest globalSetup of the "e2e" project: unpacks the Chromium of @sparticuz/chromium once (workers
// unpacking at the same moment race on the same temp files) and builds the web app when its
// source is newer than dist/web. Workers read the browser's path from KSPACE_CHROMIUM_PATH.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import chromium from '@sparticuz/chromium';

const root = path.resolve(import.meta.dirname, '../../..');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const f of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const st = fs.statSync(path.join(dir, f));
    if (st.isFile()) newest = Math.max(newest, st.mtimeMs);
  }
  return newest;
}

export default async function setup(): Promise<void> {
  process.env.KSPACE_CHROMIUM_PATH ??= await chromium.executablePath();
  const manifest = path.join(root, 'dist/web/manifest.json');
  const built = fs.existsSync(manifest) ? fs.statSync(manifest).mtimeMs : 0;
  if (built < newestMtime(path.join(root, 'src/web')) || built < fs.statSync(path.join(root, 'scripts/build-web.ts')).mtimeMs) {
    execFileSync(process.execPath, [path.join(root, 'scripts/build-web.ts')], { stdio: 'inherit', cwd: root });
  }
}
