// authproxy.mjs forwards every HTTP request to hostd mcp --http with the
// token added as "Authorization: Bearer TOKEN". The conformance suite's
// client takes only a URL, and hostd takes the token only in that header
// (never in the URL), so the suite talks to hostd through this proxy;
// everything else (Host, Origin, the body, the SSE stream back) passes
// through unchanged, so the suite's DNS-rebinding checks still reach
// hostd's. Usage: node authproxy.mjs HOSTD_URL TOKEN_FILE; it prints
// "proxy listening on http://127.0.0.1:PORT/mcp".
import fs from 'node:fs';
import http from 'node:http';

const [target, tokenFile] = process.argv.slice(2);
const upstream = new URL(target);
const token = fs.readFileSync(tokenFile, 'utf8').trim();

const server = http.createServer((req, res) => {
  const headers = { ...req.headers, authorization: `Bearer ${token}` };
  const up = http.request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers }, (answer) => {
    res.writeHead(answer.statusCode, answer.headers);
    res.flushHeaders();
    answer.pipe(res);
  });
  up.on('error', (err) => {
    if (!res.headersSent) {
      res.writeHead(502, { 'content-type': 'text/plain' });
    }
    res.end(`proxy: ${err.message}`);
  });
  res.on('close', () => up.destroy());
  req.pipe(up);
});
server.listen(0, '127.0.0.1', () => {
  console.log(`proxy listening on http://127.0.0.1:${server.address().port}${upstream.pathname}`);
});
