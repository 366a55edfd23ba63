// Which hostd binary HostdClient.spawn starts. hostd ships to npm the way
// esbuild and Biome ship native binaries: a package per platform,
// @hostd/hostd-<platform>-<arch>, each holding only that platform's hostd
// and hostctl under bin/, with os and cpu set so that npm installs just the
// one that matches; this package names all of them as optional
// dependencies at its own version (docs/embedding.md).

import fs from 'node:fs';
import path from 'node:path';

/** The platforms hostd is released for, as Node.js names them (process.platform, process.arch), and the package of each. */
export const hostdPlatformPackages: Readonly<Record<string, string>> = {
  'darwin arm64': '@hostd/hostd-darwin-arm64',
  'darwin x64': '@hostd/hostd-darwin-x64',
  'linux arm64': '@hostd/hostd-linux-arm64',
  'linux x64': '@hostd/hostd-linux-x64',
  'win32 arm64': '@hostd/hostd-win32-arm64',
  'win32 x64': '@hostd/hostd-win32-x64',
};

/** The environment variable that names a hostd binary to spawn instead of the installed package's. */
export const hostdBinEnv = 'HOSTD_BIN';

/** Why no hostd binary could be found: the platform has no package, or its package is not installed. */
export class HostdBinaryError extends Error {
  override name = 'HostdBinaryError';
  /** The package that holds the platform's binary; undefined when hostd ships none for the platform. */
  readonly packageName: string | undefined;
  readonly platform: string;
  readonly arch: string;
  constructor(message: string, packageName: string | undefined, platform: string, arch: string) {
    super(message);
    this.packageName = packageName;
    this.platform = platform;
    this.arch = arch;
  }
}

/** What hostdBinary looks at; each defaults to this process's. */
export interface HostdBinaryOptions {
  platform?: string;
  arch?: string;
  env?: Record<string, string | undefined>;
  /** Resolves a module's path as require.resolve does; for tests. */
  resolve?: (id: string) => string;
}

/**
 * hostdBinary returns the path of the hostd binary HostdClient.spawn
 * starts by default: $HOSTD_BIN when it is set, else the binary in the
 * installed @hostd/hostd-<platform>-<arch> package. Inside an Electron app's
 * asar archive it returns the path in app.asar.unpacked, where the
 * binary must be unpacked to be run (docs/embedding.md). It throws
 * HostdBinaryError, naming the package and the platform, when hostd ships
 * no binary for the platform or the package is not installed.
 */
export function hostdBinary(options: HostdBinaryOptions = {}): string {
  const env = options.env ?? process.env;
  const fromEnv = env[hostdBinEnv];
  if (fromEnv) {
    return fromEnv;
  }
  const platform = options.platform ?? process.platform;
  const arch = options.arch ?? process.arch;
  const pkg = hostdPlatformPackages[`${platform} ${arch}`];
  if (pkg === undefined) {
    const supported = Object.keys(hostdPlatformPackages).join(', ');
    throw new HostdBinaryError(
      `hostd is not released for ${platform} ${arch} (it is for ${supported}): build it from source ` +
        `(README.md, "Building from source") and set ${hostdBinEnv} or spawn({bin}) to its path`,
      undefined,
      platform,
      arch,
    );
  }
  const resolve = options.resolve ?? require.resolve;
  let manifest: string;
  try {
    manifest = resolve(`${pkg}/package.json`);
  } catch {
    throw new HostdBinaryError(
      `the package ${pkg}, hostd's binary for ${platform} ${arch}, is not installed. npm installs it with @hostd/client ` +
        `unless optional dependencies were left out (--omit=optional, --no-optional, or a lockfile made on another ` +
        `platform): install it (npm install ${pkg}), or set ${hostdBinEnv} or spawn({bin}) to the path of a hostd binary`,
      pkg,
      platform,
      arch,
    );
  }
  const bin = unpacked(path.join(path.dirname(manifest), 'bin', platform === 'win32' ? 'hostd.exe' : 'hostd'));
  if (!fs.existsSync(bin)) {
    throw new HostdBinaryError(
      `the package ${pkg} is installed but has no ${bin}: reinstall it (npm install ${pkg}), or set ${hostdBinEnv} or spawn({bin})`,
      pkg,
      platform,
      arch,
    );
  }
  return bin;
}

// unpacked maps a path inside an Electron app's app.asar to the same path
// in app.asar.unpacked: a binary cannot be executed from inside the
// archive, so the app's packager unpacks it there (asarUnpack).
function unpacked(p: string): string {
  const asar = `${path.sep}app.asar${path.sep}`;
  return p.includes(asar) ? p.replace(asar, `${path.sep}app.asar.unpacked${path.sep}`) : p;
}
