// Which binary spawn starts by default: HOSTD_BIN, else the installed
// platform package's, with an error that names the package and the
// platform when there is none (never a bare ENOENT).

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { HostdBinaryError, HostdClient, hostdBinary, hostdPlatformPackages } from '../src/index';
import { tempDir } from './hostd';

// fakePackage lays out node_modules/<pkg> with bin/<name> and returns a
// resolver that finds it there, as require.resolve would.
function fakePackage(pkg: string, binName: string | undefined, root = tempDir('bin-')): (id: string) => string {
  const dir = path.join(root, 'node_modules', ...pkg.split('/'));
  fs.mkdirSync(path.join(dir, 'bin'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: pkg, version: '0.0.0' }));
  if (binName) {
    fs.writeFileSync(path.join(dir, 'bin', binName), '');
  }
  return (id: string) => {
    if (id === `${pkg}/package.json`) {
      return path.join(dir, 'package.json');
    }
    throw Object.assign(new Error(`Cannot find module '${id}'`), { code: 'MODULE_NOT_FOUND' });
  };
}

test('HOSTD_BIN wins over the installed package', () => {
  const resolve = fakePackage('@hostd/hostd-linux-x64', 'hostd');
  assert.equal(hostdBinary({ platform: 'linux', arch: 'x64', env: { HOSTD_BIN: '/opt/hostd' }, resolve }), '/opt/hostd');
});

test('the installed platform package gives its bin/hostd, and bin/hostd.exe on Windows', () => {
  for (const [key, pkg] of Object.entries(hostdPlatformPackages)) {
    const [platform, arch] = key.split(' ') as [string, string];
    const exe = platform === 'win32' ? 'hostd.exe' : 'hostd';
    const resolve = fakePackage(pkg, exe);
    const got = hostdBinary({ platform, arch, env: {}, resolve });
    assert.equal(path.basename(got), exe, key);
    assert.ok(got.includes(path.join(...pkg.split('/'), 'bin')), `${key}: ${got}`);
  }
});

test('inside an Electron asar archive the binary is the unpacked one', () => {
  const root = path.join(tempDir('asar-'), 'resources', 'app.asar');
  const resolve = fakePackage('@hostd/hostd-linux-x64', undefined, root);
  // The binary exists only in app.asar.unpacked, where the packager puts it.
  const unpacked = path.join(path.dirname(root), 'app.asar.unpacked', 'node_modules', '@hostd', 'hostd-linux-x64', 'bin');
  fs.mkdirSync(unpacked, { recursive: true });
  fs.writeFileSync(path.join(unpacked, 'hostd'), '');
  assert.equal(hostdBinary({ platform: 'linux', arch: 'x64', env: {}, resolve }), path.join(unpacked, 'hostd'));
});

test('a missing platform package is an error naming the package and the platform', () => {
  const resolve = fakePackage('@hostd/hostd-linux-x64', 'hostd');
  assert.throws(
    () => hostdBinary({ platform: 'linux', arch: 'arm64', env: {}, resolve }),
    (err: unknown) =>
      err instanceof HostdBinaryError &&
      err.packageName === '@hostd/hostd-linux-arm64' &&
      err.platform === 'linux' &&
      err.arch === 'arm64' &&
      /the package @hostd\/hostd-linux-arm64, hostd's binary for linux arm64, is not installed/.test(err.message) &&
      /--omit=optional/.test(err.message) &&
      /HOSTD_BIN/.test(err.message),
  );
});

test('a platform hostd is not released for says so and how to build it', () => {
  assert.throws(
    () => hostdBinary({ platform: 'freebsd', arch: 'x64', env: {} }),
    (err: unknown) => err instanceof HostdBinaryError && err.packageName === undefined && /not released for freebsd x64/.test(err.message),
  );
});

test('a package without its binary is an error, not ENOENT at spawn', () => {
  const resolve = fakePackage('@hostd/hostd-linux-x64', undefined);
  assert.throws(() => hostdBinary({ platform: 'linux', arch: 'x64', env: {}, resolve }), /is installed but has no .*bin.hostd: reinstall it/);
});

test('spawn with no bin, no HOSTD_BIN and no package installed rejects with HostdBinaryError', async () => {
  const saved = process.env['HOSTD_BIN'];
  delete process.env['HOSTD_BIN'];
  try {
    // The checkout has no platform package installed: the repository's
    // package.json lists none (the release adds them).
    await assert.rejects(HostdClient.spawn(), (err: unknown) => err instanceof HostdBinaryError && err.packageName !== undefined);
  } finally {
    if (saved !== undefined) {
      process.env['HOSTD_BIN'] = saved;
    }
  }
});
