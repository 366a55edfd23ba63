// The package as people install it: packed by npm pack (prepack builds it
// and brings the license), installed from the tarball into a fresh project,
// imported as an ES module and required as CommonJS, both compiled by
// strict tsc with no @types/node and run by node against a real hostd.
// npm pack runs in a copy of the package, so that its build does not
// rewrite the dist/ other tests read while they run.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { hostdBinary, packageRoot, repoRoot, tempDir } from './hostd';

const tsc = path.join(packageRoot, 'node_modules', 'typescript', 'bin', 'tsc');

function run(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}): string {
  try {
    return execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${cmd} ${args.join(' ')} (in ${cwd}) failed: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`);
  }
}

// pack packs a copy of the package laid out as in the repository (the
// license is two levels up) and returns the tarball's path.
function pack(): string {
  const root = tempDir('pack-');
  const copy = path.join(root, 'repo', 'clients', 'typescript');
  fs.mkdirSync(copy, { recursive: true });
  for (const f of ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'README.md', 'src', 'scripts']) {
    fs.cpSync(path.join(packageRoot, f), path.join(copy, f), { recursive: true });
  }
  fs.symlinkSync(path.join(packageRoot, 'node_modules'), path.join(copy, 'node_modules'));
  fs.copyFileSync(path.join(repoRoot, 'LICENSE'), path.join(root, 'repo', 'LICENSE'));
  // Lifecycle scripts print to stdout too; the JSON report comes last.
  const stdout = run('npm', ['pack', '--json', '--pack-destination', root], copy);
  const out = JSON.parse(stdout.slice(stdout.search(/^\[/m))) as Array<{ filename: string }>;
  assert.equal(fs.existsSync(path.join(copy, 'LICENSE')), false, 'postpack leaves no LICENSE copy behind');
  return path.join(root, out[0]!.filename);
}

// What the consumer declares of Node.js itself, in place of @types/node:
// the package's types must not need it.
const ambient = `declare const process: { env: Record<string, string | undefined>; stdout: { write(text: string): boolean } };\n`;

// The same program in both module systems: one session's write and read,
// and an error matched on its typed code.
const program = (imports: string) => `${imports}

export async function main(): Promise<void> {
  const client = await HostdClient.spawn({ bin: process.env['HOSTD_BIN'], args: ['--state-dir', process.env['STATE_DIR']!] });
  try {
    await client.createSession({ workspace: process.env['WORKSPACE']!, sessionId: 's-pkg' });
    const w = await client.execute('s-pkg', 'write', { path: 'hello.txt', content: 'hi\\n' });
    const r = await client.execute('s-pkg', 'read', { path: 'nope.txt' });
    let code: string | undefined;
    try {
      await client.deleteSession('s-none');
    } catch (err) {
      code = err instanceof HostdError && err.codeName === 'SESSION_NOT_FOUND' ? err.codeName : 'other';
    }
    const esm = await import('@hostd/client');
    process.stdout.write(JSON.stringify({
      protocol: client.hostInfo?.protocolVersion === protocolVersion,
      wrote: w.ok ? w.tag.length : -1,
      failed: r.ok ? 'ok' : r.error.code,
      code,
      sameClass: esm.HostdError === HostdError,
    }));
  } finally {
    await client.close();
  }
}
`;

test('npm pack gives a package that installs, compiles and runs as ES module and CommonJS', { timeout: 240_000 }, async () => {
  const tarball = pack();
  const files = run('tar', ['tzf', tarball], path.dirname(tarball)).trim().split('\n').map((f) => f.replace(/^package\//, ''));
  for (const f of ['LICENSE', 'README.md', 'package.json', 'dist/index.js', 'dist/index.mjs', 'dist/index.d.ts', 'dist/index.d.mts', 'src/index.ts']) {
    assert.ok(files.includes(f), `the tarball lacks ${f}: ${files.join(' ')}`);
  }
  assert.deepEqual(files.filter((f) => /^(build|test|typecheck|scripts|node_modules)\//.test(f)), []);

  const consumer = tempDir('consumer-');
  fs.writeFileSync(path.join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'commonjs' }));
  run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], consumer);
  const installed = path.join(consumer, 'node_modules', '@hostd', 'client');
  assert.equal(fs.readFileSync(path.join(installed, 'LICENSE'), 'utf8'), fs.readFileSync(path.join(repoRoot, 'LICENSE'), 'utf8'));

  // Source maps name files inside the package, which it ships; the
  // declarations need nothing of Node.js's types.
  for (const f of files.filter((x) => x.endsWith('.map'))) {
    const map = JSON.parse(fs.readFileSync(path.join(installed, f), 'utf8')) as { sources: string[] };
    for (const s of map.sources) {
      const target = path.resolve(path.dirname(path.join(installed, f)), s);
      assert.ok(target.startsWith(installed + path.sep), `${f} points outside the package: ${s}`);
      assert.ok(fs.existsSync(target), `${f} points at ${s}, which the package lacks`);
    }
  }
  for (const f of files.filter((x) => /\.d\.m?ts$/.test(x))) {
    const text = fs.readFileSync(path.join(installed, f), 'utf8');
    assert.doesNotMatch(text, /\bNodeJS\.|reference types="node"|from 'node:/, `${f} needs @types/node`);
  }

  fs.writeFileSync(path.join(consumer, 'ambient.d.ts'), ambient);
  fs.writeFileSync(path.join(consumer, 'esm.mts'), program(`import { HostdClient, HostdError, protocolVersion } from '@hostd/client';`) + 'await main();\n');
  fs.writeFileSync(path.join(consumer, 'cjs.cts'), program(`import { HostdClient, HostdError, protocolVersion } from '@hostd/client';\nconst loaded = require('@hostd/client') as typeof import('@hostd/client');\nif (loaded.HostdClient !== HostdClient) throw new Error('require gave another module');\ndeclare function require(id: string): unknown;`) + 'void main();\n');
  fs.writeFileSync(
    path.join(consumer, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { target: 'es2022', lib: ['es2022'], module: 'nodenext', moduleResolution: 'nodenext', types: [], strict: true, skipLibCheck: false, noEmitOnError: true },
      files: ['ambient.d.ts', 'esm.mts', 'cjs.cts'],
    }),
  );
  run(process.execPath, [tsc, '-p', '.'], consumer);
  assert.match(fs.readFileSync(path.join(consumer, 'cjs.cjs'), 'utf8'), /require\("@hostd\/client"\)/);
  assert.match(fs.readFileSync(path.join(consumer, 'esm.mjs'), 'utf8'), /from '@hostd\/client'/);

  for (const script of ['esm.mjs', 'cjs.cjs']) {
    const workspace = tempDir('ws-');
    const out = run(process.execPath, [script], consumer, { HOSTD_BIN: hostdBinary(), STATE_DIR: tempDir('hostd-state-'), WORKSPACE: workspace });
    assert.deepEqual(JSON.parse(out), { protocol: true, wrote: 4, failed: 'NOT_FOUND', code: 'SESSION_NOT_FOUND', sameClass: true }, script);
    assert.equal(fs.readFileSync(path.join(workspace, 'hello.txt'), 'utf8'), 'hi\n', script);
  }
});
