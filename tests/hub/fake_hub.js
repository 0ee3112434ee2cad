// A fake Hugging Face hub for kbdata's tests (docs/hub.md, "The fake hub"): two loopback servers,
// the hub (API and resolve endpoints) and a "CDN" (signed URLs), speaking the protocol kbdata
// expects from the real hub, with switches for every fault kbdata must survive.
//
//   node fake_hub.js CONFIG.json
//
// CONFIG: {
//   repo: "OWNER/NAME", sha: "<40 hex>", refs: {"main": "<sha>"},
//   files: [{path, source, lfs, tree_size?, tree_lfs_oid?}]  source: a local file served as
//       `path`; tree_size / tree_lfs_oid: what the tree claims instead of the truth (a lying
//       server)
//   bogus: [{path, size, oid, lfs_oid?}]   tree entries with no content (hostile paths)
//   page_size: entries per tree page (default 1000), token: the token the hub requires (optional)
//   latency_ms: added before every answer, chunk_delay_ms: between 16 KiB chunks of CDN bodies
//   faults: [{on: "revision"|"tree"|"resolve"|"cdn", path?, page?, count, kind, ...}]
//       kind: "status" (status: N), "rate_limit" (form: "ratelimit"|"retry-after"|
//       "retry-after-date"|"bare", seconds), "drop" (close the connection mid-body),
//       "truncate" (announce the full length, send half, end), "ignore_range" (a 200 with the
//       whole body for a Range request), "expired" (403, as an expired signed URL),
//       "wrong_bytes" (one byte flipped), "shift_range" (a 206 for a Range request starting one
//       byte later than asked, its Content-Range saying so); after: N lets the first N matching
//       requests through before the fault applies
//     tree pages only: "link_to" (the page's Link header points at page `target`'s URL: the page
//       itself, or one before it), "endless" (every page from this one on lists `page_size`
//       invented files and links to a new cursor, forever), "empty" (the page lists nothing
//       but links to the next cursor), "huge" (a 200 whose body is `bytes` bytes of one JSON
//       array of file entries, streamed)
//     revision, tree and resolve: "redirect" (a 302 to `location`, as it is given)
//   log: a file that gets one JSON line per request: {server, method, url, range, auth}, and one
//       per answer sent in full or cut: {server, done: url}
// }
// Prints "hub PORT cdn PORT" once both listen. A request that brings an Authorization header to
// the CDN is logged with "violation": the tests fail on it.
'use strict';
const fs = require('fs');
const http = require('http');
const crypto = require('crypto');

const config = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const repo = config.repo;
const sha = config.sha;
const refs = config.refs || {main: sha};
const pageSize = config.page_size || 1000;
const faults = (config.faults || []).map((f) => ({...f, left: f.count === undefined ? 1 : f.count,
                                                    skip: f.after || 0}));
const logFd = config.log ? fs.openSync(config.log, 'a') : null;
let hubPort = 0;
let cdnPort = 0;
let signature = 0;
let endlessFrom = null;  // the page an "endless" fault started at

function log(entry) {
  if (logFd !== null) fs.writeSync(logFd, JSON.stringify(entry) + '\n');
}

// Contents and identities of the files, read once.
const files = (config.files || []).map((f) => {
  const bytes = fs.readFileSync(f.source);
  const sha256 = crypto.createHash('sha256').update(bytes).digest('hex');
  const gitOid = crypto.createHash('sha1')
                     .update(Buffer.concat([Buffer.from(`blob ${bytes.length}\0`), bytes]))
                     .digest('hex');
  return {...f, bytes, sha256, gitOid};
});

function treeEntries() {
  const entries = [];
  const dirs = new Set();
  for (const f of files) {
    const parts = f.path.split('/');
    for (let i = 1; i < parts.length; ++i) dirs.add(parts.slice(0, i).join('/'));
    const entry = {type: 'file', path: f.path, size: f.tree_size ?? f.bytes.length,
                   oid: f.gitOid};
    if (f.lfs) entry.lfs = {oid: f.tree_lfs_oid ?? f.sha256, size: f.bytes.length, pointerSize: 134};
    entries.push(entry);
  }
  for (const b of config.bogus || []) {
    const entry = {type: 'file', path: b.path, size: b.size, oid: b.oid};
    if (b.lfs_oid) entry.lfs = {oid: b.lfs_oid, size: b.size, pointerSize: 134};
    entries.push(entry);
  }
  for (const d of dirs) entries.push({type: 'directory', path: d, oid: '0'.repeat(40)});
  return entries;
}

// The first fault matching this request, consumed; or null.
function takeFault(on, props) {
  for (const f of faults) {
    if (f.on !== on || f.left <= 0) continue;
    if (f.path !== undefined && f.path !== props.path) continue;
    if (f.page !== undefined && f.page !== props.page) continue;
    if (f.skip > 0) {
      f.skip -= 1;
      continue;
    }
    f.left -= 1;
    return f;
  }
  return null;
}

function sendJson(res, status, value, headers = {}) {
  const body = Buffer.from(JSON.stringify(value));
  res.writeHead(status, {'Content-Type': 'application/json', 'Content-Length': body.length,
                         ...headers});
  res.end(body);
}

// A tree page of `bytes` bytes: one JSON array of invented file entries, streamed.
function sendHugeTree(res, bytes) {
  const entry = Buffer.from(JSON.stringify({type: 'file', path: 'x'.repeat(900), size: 1,
                                            oid: '0'.repeat(40)}) + ',');
  const block = Buffer.concat(Array(1024).fill(entry));
  res.writeHead(200, {'Content-Type': 'application/json', 'Content-Length': bytes});
  let left = bytes - 1;
  res.write('[');
  const more = () => {
    while (left > 0) {
      const piece = block.subarray(0, Math.min(block.length, left));
      left -= piece.length;
      if (!res.write(piece)) return res.once('drain', more);
    }
    res.end();
  };
  more();
}

// Answers with the fault `f` if it is one that replaces the answer; returns true if it did.
function answerFault(res, f) {
  if (f === null) return false;
  if (f.kind === 'status') {
    sendJson(res, f.status, {error: `fault ${f.status}`});
    return true;
  }
  if (f.kind === 'redirect') {
    res.writeHead(302, {'Location': f.location, 'Content-Length': 0});
    res.end();
    return true;
  }
  if (f.kind === 'expired') {
    sendJson(res, 403, {error: 'Request has expired'});
    return true;
  }
  if (f.kind === 'rate_limit') {
    const seconds = f.seconds ?? 0;
    const headers = {};
    if (f.form === 'ratelimit') {
      headers['RateLimit'] = `"resolvers";r=0;t=${seconds}`;
      headers['RateLimit-Policy'] = '"fixed window";"resolvers";q=3000;w=300';
    } else if (f.form === 'retry-after') {
      headers['Retry-After'] = String(seconds);
    } else if (f.form === 'retry-after-date') {
      headers['Retry-After'] = new Date(Date.now() + seconds * 1000).toUTCString();
    }
    sendJson(res, 429, {error: 'rate limited'}, headers);
    return true;
  }
  return false;
}

function later(fn) {
  if (config.latency_ms) setTimeout(fn, config.latency_ms); else fn();
}

function hubHandler(req, res) {
  const url = new URL(req.url, `http://127.0.0.1:${hubPort}`);
  const auth = req.headers['authorization'];
  log({server: 'hub', method: req.method, url: req.url, range: req.headers['range'] || null,
       auth: auth !== undefined});
  if (config.token !== undefined && auth !== `Bearer ${config.token}`) {
    return sendJson(res, 401, {error: 'Invalid credentials in Authorization header'});
  }
  const prefix = `/api/datasets/${repo}/`;
  if (url.pathname.startsWith(prefix + 'revision/')) {
    const rev = decodeURIComponent(url.pathname.slice((prefix + 'revision/').length));
    if (answerFault(res, takeFault('revision', {}))) return;
    const commit = rev === sha ? sha : refs[rev];
    if (commit === undefined) return sendJson(res, 404, {error: `Invalid rev id: ${rev}`});
    return sendJson(res, 200, {id: repo, sha: commit,
                               siblings: files.map((f) => ({rfilename: f.path}))});
  }
  if (url.pathname === `${prefix}tree/${sha}`) {
    const cursor = Number(url.searchParams.get('cursor') || '0');
    const page = cursor / pageSize;
    const pageUrl = (p) => `http://127.0.0.1:${hubPort}${prefix}tree/${sha}?recursive=true` +
                           (p === 0 ? '' : `&cursor=${p * pageSize}`);
    const f = takeFault('tree', {page});
    if (answerFault(res, f)) return;
    if (f !== null && f.kind === 'huge') return sendHugeTree(res, f.bytes);
    if (endlessFrom !== null && page >= endlessFrom || f !== null && f.kind === 'endless') {
      if (endlessFrom === null) endlessFrom = page;
      const invented = [];
      for (let i = 0; i < pageSize; ++i) {
        invented.push({type: 'file', path: `endless/${cursor + i}.bin`, size: 1,
                       oid: crypto.createHash('sha1').update(String(cursor + i)).digest('hex')});
      }
      return sendJson(res, 200, invented, {'Link': `<${pageUrl(page + 1)}>; rel="next"`});
    }
    const all = treeEntries();
    const headers = {};
    if (f !== null && f.kind === 'link_to') {
      headers['Link'] = `<${pageUrl(f.target)}>; rel="next"`;
    } else if (f !== null && f.kind === 'empty') {
      return sendJson(res, 200, [], {'Link': `<${pageUrl(page + 1)}>; rel="next"`});
    } else if (cursor + pageSize < all.length) {
      headers['Link'] = `<${pageUrl(page + 1)}>; rel="next"`;
    }
    return sendJson(res, 200, all.slice(cursor, cursor + pageSize), headers);
  }
  const resolvePrefix = `/datasets/${repo}/resolve/`;
  const cachePrefix = `/api/resolve-cache/datasets/${repo}/${sha}/`;
  let path = null;
  let viaCache = false;
  if (url.pathname.startsWith(resolvePrefix)) {
    const rest = url.pathname.slice(resolvePrefix.length);
    const slash = rest.indexOf('/');
    if (slash < 0 || decodeURIComponent(rest.slice(0, slash)) !== sha) {
      return sendJson(res, 404, {error: 'kbdata must resolve by commit'});
    }
    path = rest.slice(slash + 1).split('/').map(decodeURIComponent).join('/');
  } else if (url.pathname.startsWith(cachePrefix)) {
    path = url.pathname.slice(cachePrefix.length).split('/').map(decodeURIComponent).join('/');
    viaCache = true;
  } else {
    return sendJson(res, 404, {error: 'no such endpoint'});
  }
  const file = files.find((f) => f.path === path);
  if (file === undefined) return sendJson(res, 404, {error: 'Entry not found'});
  if (!viaCache && answerFault(res, takeFault('resolve', {path}))) return;
  if (file.lfs) {
    signature += 1;
    const body = Buffer.from('Found. Redirecting');
    res.writeHead(302, {
      'Location': `http://127.0.0.1:${cdnPort}/blobs/${file.sha256}?sig=${signature}`,
      'X-Repo-Commit': sha,
      'X-Linked-Etag': `"${file.sha256}"`,
      'X-Linked-Size': String(file.bytes.length),
      'X-Xet-Hash': crypto.createHash('sha256').update(file.sha256).digest('hex'),
      'Content-Length': body.length,
    });
    return res.end(body);
  }
  if (!viaCache) {
    // Small files come through a relative redirect, as from a renamed repository.
    res.writeHead(307, {'Location': `${cachePrefix}${path}`, 'Content-Length': 0});
    return res.end();
  }
  return serveBytes(req, res, file, takeFault('resolve-body', {path}), {'ETag': `"${file.gitOid}"`,
                                                                         'X-Repo-Commit': sha});
}

// Serves `file` (with Range) or the fault that bends the answer.
function serveBytes(req, res, file, f, extra = {}) {
  let bytes = file.bytes;
  if (f !== null && f.kind === 'wrong_bytes') {
    bytes = Buffer.from(bytes);
    bytes[bytes.length >> 1] ^= 0x5a;
  }
  let start = 0;
  let end = bytes.length - 1;
  let status = 200;
  const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers['range'] || '');
  if (range && !(f !== null && f.kind === 'ignore_range')) {
    start = Number(range[1]);
    if (range[2] !== '') end = Math.min(end, Number(range[2]));
    if (f !== null && f.kind === 'shift_range' && start < end) start += 1;
    if (start > end) {
      res.writeHead(416, {'Content-Range': `bytes */${bytes.length}`});
      return res.end();
    }
    status = 206;
  }
  const headers = {'Content-Length': end - start + 1, 'Accept-Ranges': 'bytes',
                   'Content-Type': 'application/octet-stream', ...extra};
  if (status === 206) headers['Content-Range'] = `bytes ${start}-${end}/${bytes.length}`;
  res.writeHead(status, headers);
  const body = bytes.subarray(start, end + 1);
  const half = body.length >> 1;
  if (f !== null && (f.kind === 'drop' || f.kind === 'truncate')) {
    res.write(body.subarray(0, half), () => {
      if (f.kind === 'drop') setTimeout(() => res.socket.destroy(), 20);
      else setTimeout(() => res.socket.end(), 20);
    });
    return;
  }
  const chunk = 16384;
  let at = 0;
  const next = () => {
    if (at >= body.length) return res.end();
    const piece = body.subarray(at, at + chunk);
    at += chunk;
    if (config.chunk_delay_ms) {
      res.write(piece);
      setTimeout(next, config.chunk_delay_ms);
    } else if (res.write(piece)) {
      next();
    } else {
      res.once('drain', next);
    }
  };
  next();
}

function cdnHandler(req, res) {
  const url = new URL(req.url, `http://127.0.0.1:${cdnPort}`);
  const entry = {server: 'cdn', method: req.method, url: req.url,
                 range: req.headers['range'] || null,
                 auth: req.headers['authorization'] !== undefined};
  if (entry.auth) entry.violation = 'Authorization header sent to the CDN';
  log(entry);
  const match = /^\/blobs\/([0-9a-f]{64})$/.exec(url.pathname);
  const file = match ? files.find((f) => f.sha256 === match[1]) : undefined;
  if (file === undefined || !url.searchParams.get('sig')) {
    return sendJson(res, 404, {error: 'NoSuchKey'});
  }
  const f = takeFault('cdn', {path: file.path});
  if (answerFault(res, f)) return;
  serveBytes(req, res, file, f);
}

function logged(server, handler) {
  return (req, res) => {
    res.on('close', () => log({server, done: req.url}));
    later(() => handler(req, res));
  };
}
const hub = http.createServer(logged('hub', hubHandler));
const cdn = http.createServer(logged('cdn', cdnHandler));
hub.listen(0, '127.0.0.1', () => {
  hubPort = hub.address().port;
  cdn.listen(0, '127.0.0.1', () => {
    cdnPort = cdn.address().port;
    process.stdout.write(`hub ${hubPort} cdn ${cdnPort}\n`);
  });
});
process.on('SIGTERM', () => process.exit(0));
