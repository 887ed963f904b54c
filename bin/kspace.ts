// Entry point from a checkout (bin/kspace, npm start). The single executable starts at
// src/sea-main.ts instead.
import path from 'node:path';
import { setAssetRoot } from '../src/assets.ts';
import { run } from '../src/cli/run.ts';

setAssetRoot(path.join(import.meta.dirname, '..'));
process.exitCode = await run(process.argv.slice(2));
