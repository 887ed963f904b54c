// Entry point from a checkout (bin/kspace, npm start). The single executable starts at
// src/sea-main.ts instead.
import path from 'node:path';
import { setAssetRoot } from '../src/assets.ts';
import { main } from '../src/cli/main.ts';

setAssetRoot(path.join(import.meta.dirname, '..'));
process.exitCode = await main(process.argv.slice(2));
