#!/usr/bin/env node
// license.mjs puts the repository's LICENSE in the package directory for
// npm pack (prepack), and takes it away again (postpack, --remove), so the
// tarball carries the license and the repository keeps one copy of it.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const source = path.resolve(packageRoot, '..', '..', 'LICENSE');
const target = path.join(packageRoot, 'LICENSE');

if (process.argv.includes('--remove')) {
  fs.rmSync(target, { force: true });
} else {
  fs.copyFileSync(source, target);
}
