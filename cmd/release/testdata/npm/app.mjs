// What docs/embedding.md tells a desktop app to do, as a program: find
// hostd in the installed npm package, spawn one `hostd --stdio` per
// window, let a window's client bring back a daemon that was killed (a
// few restarts in a few minutes, then stop and say why), and end every
// hostd when the app quits.
//
// node app.mjs WORKSPACE STATE_DIR prints one JSON line; cmd/release's
// TestReleaseArtifacts checks it.

import { HostdClient, hostdBinary } from '@hostd/client';

const [workspace, stateDir] = process.argv.slice(2);

// The binary: the installed platform package's (HOSTD_BIN, when set,
// names another; an Electron app's path is mapped to app.asar.unpacked).
const bin = hostdBinary();

// A window: its own hostd --stdio, restarted at most twice in three
// minutes. --state-dir keeps this program's daemon apart from the user's
// own; an app leaves it out, and every window then forwards to the user's
// shared daemon.
async function openWindow(name) {
  const client = await HostdClient.spawn({
    bin,
    args: ['--standalone', '--state-dir', `${stateDir}/${name}`],
    restart: { maxRestarts: 2, windowMs: 180_000 },
  });
  const restarts = [];
  client.onRestart((e) => restarts.push(e.sessions));
  const closed = new Promise((resolve) => client.onClose(resolve));
  await client.createSession({ workspace, sessionId: name });
  return { name, client, restarts, closed };
}

// kill ends a window's hostd as a crash would, and waits for the client
// to have restarted it or given up.
async function kill(w) {
  const pid = w.client.hostInfo.pid;
  const restarted = new Promise((resolve) => {
    const d = w.client.onRestart(() => {
      d.dispose();
      resolve('restarted');
    });
    w.closed.then(() => resolve('gave up'));
  });
  process.kill(pid, 'SIGKILL');
  return { pid, outcome: await restarted };
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const a = await openWindow('window-a');
const b = await openWindow('window-b');
const kills = [];
for (let i = 0; i < 3; i++) {
  kills.push(await kill(a));
  if (!a.client.closed) {
    // The session is back: a call works on the new daemon.
    const r = await a.client.execute('window-a', 'read', { path: 'greet.txt' });
    kills[i].readAfter = r.ok;
  }
}
let afterGiveUp;
try {
  await a.client.execute('window-a', 'read', { path: 'greet.txt' });
  afterGiveUp = 'answered';
} catch (err) {
  afterGiveUp = err.name;
}
const bRead = await b.client.execute('window-b', 'read', { path: 'greet.txt' });

// Quit: close every window's client; each hostd exits when its stdin closes.
const bPid = b.client.hostInfo.pid;
await b.client.close();
await a.client.close();
process.stdout.write(JSON.stringify({
  bin,
  kills,
  afterGiveUp,
  otherWindowRead: bRead.ok,
  otherWindowExited: !alive(bPid),
  restartedSessions: a.restarts,
}) + '\n');
