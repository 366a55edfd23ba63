// A runtime's first use of hostd from npm, run against the packages the
// release made, installed into a fresh project: HostdClient.spawn with no
// bin finds the binary of the installed platform package, then a read,
// an edit, the review record and a rollback.
//
// node tools.mjs WORKSPACE STATE_DIR prints one JSON line; cmd/release's
// TestReleaseArtifacts checks it. HOSTD_E2E_ARCH names another
// architecture's package (installed with npm's --cpu), whose binary the
// kernel runs under an emulator.

import { HostdClient, hostdBinary } from '@hostd/client';
import fs from 'node:fs';
import path from 'node:path';

const [workspace, stateDir] = process.argv.slice(2);
const arch = process.env.HOSTD_E2E_ARCH;
const bin = hostdBinary(arch ? { arch } : {});
const args = ['--standalone', '--state-dir', stateDir];
// Without an architecture named, spawn is given no bin: its default is the point.
const client = await HostdClient.spawn(arch ? { bin, args } : { args });
try {
  await client.createSession({ workspace, sessionId: 'npm' });
  const read = await client.execute('npm', 'read', { path: 'greet.txt' });
  if (!read.ok) throw new Error(`read: ${JSON.stringify(read)}`);
  const edit = await client.execute('npm', 'edit', { path: 'greet.txt', tag: read.tag, ops: 'PUT 2:\n+hello, npm' }, { toolCallId: 'tc-npm-edit', promptId: 'p1' });
  if (!edit.ok) throw new Error(`edit: ${JSON.stringify(edit)}`);
  const edited = fs.readFileSync(path.join(workspace, 'greet.txt'), 'utf8');
  const review = await client.reviewList('npm');
  const rolled = await client.rollback('npm', 'tc-npm-edit');
  const after = fs.readFileSync(path.join(workspace, 'greet.txt'), 'utf8');
  process.stdout.write(JSON.stringify({
    bin,
    version: client.hostInfo?.version,
    edited,
    reviewed: review.entries.map((e) => e.toolCallId),
    rolledBack: rolled !== undefined,
    after,
  }) + '\n');
} finally {
  await client.close();
}
