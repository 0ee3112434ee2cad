#!/usr/bin/env node
// The browser test of `kbdata serve`: headless Chromium, driven over the Chrome DevTools protocol,
// loads every page type of the server on the bundled sample plus a planted hostile submission and
// checks what a user would see: the content is there, nothing throws or logs an error, nothing is
// fetched from elsewhere, and the planted code, user name and file name show as text rather than
// run as markup. A full-page screenshot of each page is kept. See README.md beside this file.
//
//   node tests/browser/browser_test.mjs KBDATA_BINARY SOURCE_DIR SCREENSHOT_DIR
//
// SOURCE_DIR is the repository (its data/sample and tools/peers are used). Chromium is `chromium`
// on the PATH, or $CHROMIUM. Every check is reported on its own line (PASS/FAIL, page, check, what
// was found); a page that fails does not stop the others. Exits 1 when any check failed, 2 on wrong
// usage. Chromium and the server are always stopped, on failure, interruption and the overall
// timeout (90 s) too.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

const OVERALL_TIMEOUT_MS = 90_000;
const START_TIMEOUT_MS = 30_000;   // the server's URL line, Chromium's DevTools line
const PAGE_TIMEOUT_MS = 15_000;    // one navigation up to its load event
const SETTLE_MS = 300;             // after the load event: late scripts, errors, onerror handlers
const VIEWPORT = { width: 1280, height: 900 };
const MAX_SCREENSHOT_HEIGHT = 16_384;

if (process.argv.length !== 5) {
  console.error('usage: node tests/browser/browser_test.mjs KBDATA_BINARY SOURCE_DIR SCREENSHOT_DIR');
  process.exit(2);
}
const KBDATA = path.resolve(process.argv[2]);
const REPO = path.resolve(process.argv[3]);
const SHOTS = path.resolve(process.argv[4]);
const PEERS = path.join(REPO, 'tools', 'peers');
const SAMPLE = path.join(REPO, 'data', 'sample');
const CHROMIUM = process.env.CHROMIUM || 'chromium';

// ---------------------------------------------------------------------------------------------
// Results: one line per check, printed as it is decided.

const results = [];
let acceptingResults = true;  // false once an interrupted run is being torn down
function record(page, check, ok, detail = '') {
  if (!acceptingResults) return ok;
  results.push({ page, check, ok, detail });
  const line = `${ok ? 'PASS' : 'FAIL'} ${page}: ${check}${detail ? ` (${detail})` : ''}`;
  console.log(`browser_test: ${line}`);
  return ok;
}
const clip = (text, n = 300) => {
  const s = String(text).replace(/\s+/g, ' ').trim();
  return s.length > n ? `${s.slice(0, n)}...` : s;
};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms / 1000} s`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

// ---------------------------------------------------------------------------------------------
// Processes and temporary files, released by cleanup() whatever happens.

let tmp = null;
let server = null;   // { child, url, stdout, stderr, exited: a promise of { code, signal } }
let browser = null;  // { child, stderr, exited: a promise of true }
let client = null;   // the DevTools connection
let phase = 'setting up';
let finishing = false;

// The process ids descending from pid, from /proc (Chromium's zygotes, renderers and helpers).
function descendants(pid) {
  const children = new Map();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(entry));
    } catch {}  // gone meanwhile
  }
  const found = [];
  for (let queue = [pid]; queue.length > 0;) {
    for (const child of children.get(queue.pop()) ?? []) { found.push(child); queue.push(child); }
  }
  return found;
}
const alive = (pid) => { try { process.kill(pid, 0); return true; } catch { return false; } };

async function stopBrowser() {
  if (!browser) return;
  const { child, exited } = browser;
  browser = null;
  let helpers = [];
  try { helpers = descendants(child.pid); } catch {}
  if (client) {
    try { await withTimeout(client.Browser.close(), 3000, 'Browser.close'); } catch {}
    try { await client.close(); } catch {}
    client = null;
  }
  if (!(await withTimeout(exited, 3000, 'chromium exit').catch(() => false))) {
    child.kill('SIGKILL');
    await withTimeout(exited, 5000, 'chromium exit').catch(() => {});
  }
  // Its helpers follow the browser process within a moment; any left then are killed.
  for (let waited = 0; waited < 3000 && helpers.some(alive); waited += 100) await sleep(100);
  for (const pid of helpers.filter(alive)) { try { process.kill(pid, 'SIGKILL'); } catch {} }
}

async function stopServer(checkExit) {
  if (!server) return;
  const { child, exited } = server;
  const stopping = server;
  server = null;
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  let status = await withTimeout(exited, 10_000, 'server exit').catch(() => null);
  if (status === null) {
    child.kill('SIGKILL');
    await withTimeout(exited, 5000, 'server exit').catch(() => {});
  }
  if (!checkExit) return;
  record('server', 'exits 0 on SIGTERM', status !== null && status.code === 0,
         status === null ? 'still running 10 s after SIGTERM; killed'
                         : `exit code ${status.code}, signal ${status.signal}` +
                           (status.code !== 0 && stopping.stderr ? `; stderr: ${clip(stopping.stderr)}` : ''));
  const extra = stopping.stdout.slice(stopping.stdout.indexOf('\n') + 1);
  record('server', 'stdout is exactly the one URL line', extra === '',
         extra ? `more output: ${clip(extra)}` : '');
}

async function cleanup(orderly) {
  await stopBrowser().catch(() => {});
  await stopServer(orderly).catch(() => {});
  if (tmp) {
    if (process.env.KBDATA_BROWSER_KEEP) {
      console.error(`browser_test: kept the temporary folder ${tmp}`);
    } else {
      fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 3 });
    }
    tmp = null;
  }
}

async function finish(orderly) {
  if (finishing) return;
  finishing = true;
  // After a timeout or a signal, what fails while everything is stopped is no finding.
  if (!orderly) acceptingResults = false;
  clearTimeout(overallTimer);
  await cleanup(orderly);
  const failed = results.filter((r) => !r.ok);
  if (failed.length === 0 && results.length > 0) {
    console.log(`browser_test: all ${results.length} checks passed; screenshots in ${SHOTS}`);
    process.exit(0);
  }
  const pages = [...new Set(failed.map((r) => r.page))];
  console.error(`browser_test: ${failed.length} of ${results.length} checks failed, on ` +
                `${pages.join(', ')}:`);
  for (const r of failed) console.error(`  ${r.page}: ${r.check}${r.detail ? ` (${clip(r.detail, 200)})` : ''}`);
  process.exit(1);
}

const overallTimer = setTimeout(() => {
  record('test', `finishes within ${OVERALL_TIMEOUT_MS / 1000} s`, false, `timed out while ${phase}`);
  finish(false);
}, OVERALL_TIMEOUT_MS);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    record('test', 'runs to the end', false, `interrupted by ${signal} while ${phase}`);
    finish(false);
  });
}

function fatal(page, check, error) {
  record(page, check, false, error instanceof Error ? error.message : String(error));
  return finish(false);
}

// ---------------------------------------------------------------------------------------------
// The npm peers: DuckDB to write the planted rows, chrome-remote-interface for DevTools.

const requirePeer = createRequire(path.join(PEERS, 'package.json'));
let DuckDBInstance, DuckDBTimestampTZValue, CDP;
try {
  ({ DuckDBInstance, DuckDBTimestampTZValue } = requirePeer('@duckdb/node-api'));
  CDP = requirePeer('chrome-remote-interface');
} catch (error) {
  await fatal('setup', 'the npm peers load', new Error(
    `cannot load them from ${PEERS}/node_modules (${error.message.split('\n')[0]}); ` +
    'run scripts/install-deps'));
}
if (!fs.existsSync(KBDATA)) await fatal('setup', 'the kbdata binary exists', `no file ${KBDATA}; build it first`);

// ---------------------------------------------------------------------------------------------
// The data: a copy of the bundled sample, with a planted user of two submissions to nvfp4_gemm
// (leaderboard 597) on B200 whose second code, user name and file name are markup that would run
// if a page forgot to escape it. The first submission makes the user's diff have both sides.

const LEADERBOARD = { id: 597, name: 'nvfp4_gemm', runner: 'B200' };
const PLANTED_USER_ID = '909090909090909090';
const PLANTED_USER_NAME = '<img src=x onerror="window.__xss=2">';
const PLANTED_FILE_NAME = '<svg onload=window.__xss=3>.py';
const HOSTILE_LINE = '</pre><script>window.__xss=1</script>';
const ENTITY_LINE = 'ENTITIES = "&lt;b&gt; &amp; <b>"';
const UTF8_LINE = '# timings in µs, naïve → tiled';
const CODE_HEAD = [
  '# planted by tests/browser: a hostile submission whose code, user name and file name are markup',
  'import torch',
  'from task import input_t, output_t',
  '',
];
const PLANTED = [
  {
    submission_id: 91000001n, code_id: 91000001n, time: '2025-12-01T10:00:00Z', score: 6.0e-5,
    code: [...CODE_HEAD, '',
      'def custom_kernel(data: input_t) -> output_t:',
      '    a, b, c = data',
      '    c[...] = (a.float() @ b.float()).to(c.dtype)',
      '    return c', ''].join('\n'),
  },
  {
    submission_id: 91000002n, code_id: 91000002n, time: '2025-12-03T10:00:00Z', score: 4.0e-5,
    code: [...CODE_HEAD,
      `# ${HOSTILE_LINE}`,
      `HOSTILE = "${HOSTILE_LINE}"`,
      ENTITY_LINE,
      UTF8_LINE,
      '',
      '',
      'def custom_kernel(data: input_t) -> output_t:',
      '    a, b, c = data',
      '    torch.matmul(a, b, out=c)',
      '    return c', ''].join('\n'),
  },
];
const HOSTILE_SUBMISSION = PLANTED[1].submission_id;

async function makeData(dir) {
  fs.cpSync(SAMPLE, dir, { recursive: true });
  const file = 'nvidia_nvfp4_submissions.parquet';
  const sqlPath = (p) => `'${p.replaceAll("'", "''")}'`;
  const instance = await DuckDBInstance.create(':memory:');
  const db = await instance.connect();
  try {
    await db.run(`SET TimeZone = 'UTC'`);
    // The flat schema's 14 columns (docs/dataset.md §4.1).
    await db.run(`CREATE TABLE planted (
      submission_id BIGINT, leaderboard_id BIGINT, problem_name VARCHAR, user_id VARCHAR,
      user_name VARCHAR, code_id BIGINT, file_name VARCHAR, submission_time TIMESTAMPTZ,
      status VARCHAR, score DOUBLE, passed BOOLEAN, mode VARCHAR, runner VARCHAR, code VARCHAR)`);
    const appender = await db.createAppender('planted');
    for (const p of PLANTED) {
      appender.appendBigInt(p.submission_id);
      appender.appendBigInt(BigInt(LEADERBOARD.id));
      appender.appendVarchar(LEADERBOARD.name);
      appender.appendVarchar(PLANTED_USER_ID);
      appender.appendVarchar(PLANTED_USER_NAME);
      appender.appendBigInt(p.code_id);
      appender.appendVarchar(PLANTED_FILE_NAME);
      appender.appendTimestampTZ(new DuckDBTimestampTZValue(BigInt(Date.parse(p.time)) * 1000n));
      appender.appendVarchar('succeeded');
      appender.appendDouble(p.score);
      appender.appendBoolean(true);
      appender.appendVarchar('leaderboard');
      appender.appendVarchar(LEADERBOARD.runner);
      appender.appendVarchar(p.code);
      appender.endRow();
    }
    appender.closeSync();
    // The sample's rows and the planted ones, in the public exporter's order.
    await db.run(`COPY (
        SELECT * FROM read_parquet(${sqlPath(path.join(SAMPLE, file))})
        UNION ALL SELECT * FROM planted
        ORDER BY problem_name, score NULLS LAST, submission_id)
      TO ${sqlPath(path.join(dir, file))} (FORMAT PARQUET, COMPRESSION SNAPPY)`);
  } finally {
    db.closeSync?.();
    instance.closeSync?.();
  }
}

// ---------------------------------------------------------------------------------------------
// Starting the server and the browser.

function startServer(dataDir) {
  const child = spawn(KBDATA, ['serve', '--data', dataDir, '--port', '0'],
                      { stdio: ['ignore', 'pipe', 'pipe'] });
  const state = { child, url: null, stdout: '', stderr: '' };
  state.exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  server = state;
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d) => { state.stderr = (state.stderr + d).slice(-8192); });
  child.stdout.setEncoding('utf8');
  return withTimeout(new Promise((resolve, reject) => {
    child.on('error', (error) => reject(new Error(`cannot run ${KBDATA}: ${error.message}`)));
    child.on('exit', (code, signal) => reject(new Error(
      `exited (code ${code}, signal ${signal}) before printing its URL`)));
    child.stdout.on('data', (d) => {
      state.stdout = (state.stdout + d).slice(0, 65536);
      const end = state.stdout.indexOf('\n');
      if (end < 0 || state.url) return;
      const line = state.stdout.slice(0, end);
      const match = /^kbdata: serving (.*) at (http:\/\/127\.0\.0\.1:(\d+)\/)$/.exec(line);
      if (!match) return reject(new Error(`unexpected first line ${JSON.stringify(line)}`));
      if (match[1] !== dataDir) {
        return reject(new Error(`the line names ${JSON.stringify(match[1])}, not the folder given (${dataDir})`));
      }
      state.url = match[2];
      resolve(state.url);
    });
  }), START_TIMEOUT_MS, 'the URL line').catch(async (error) => {
    await sleep(100);  // the rest of its stderr
    throw new Error(`${error.message}${state.stderr ? `; stderr: ${clip(state.stderr)}` : ''}`);
  });
}

function startBrowser(profileDir) {
  const args = [
    '--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
    '--remote-debugging-port=0', `--user-data-dir=${profileDir}`,
    '--no-first-run', '--no-default-browser-check', '--disable-extensions',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
    '--disable-default-apps', '--mute-audio', '--hide-scrollbars',
    `--window-size=${VIEWPORT.width},${VIEWPORT.height}`,
    'about:blank',
  ];
  // In the test's process group, so that whatever stops the test (ctest, ^C) stops Chromium too.
  // Debian's /usr/bin/chromium execs the browser, so child is the browser process.
  const child = spawn(CHROMIUM, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const state = { child, stderr: '' };
  state.exited = new Promise((resolve) => child.on('exit', () => resolve(true)));
  browser = state;
  child.stderr.setEncoding('utf8');
  return withTimeout(new Promise((resolve, reject) => {
    child.on('error', (error) => reject(new Error(
      `cannot run ${CHROMIUM}: ${error.message}; run scripts/install-deps (Debian's chromium)`)));
    child.on('exit', (code, signal) => reject(new Error(
      `chromium exited (code ${code}, signal ${signal}) at startup; stderr: ${clip(state.stderr, 600)}`)));
    child.stderr.on('data', (d) => {
      state.stderr = (state.stderr + d).slice(-16384);
      const match = /DevTools listening on (ws:\/\/([^\s/]+):(\d+)\/\S*)/.exec(state.stderr);
      if (match) resolve({ host: match[2], port: Number(match[3]) });
    });
  }), START_TIMEOUT_MS, 'chromium\'s "DevTools listening on" line');
}

// ---------------------------------------------------------------------------------------------
// One page: navigate, wait for the load event, collect what went wrong on the way.

let current = null;  // the page being loaded: its problems, requests and document response
let origin = null;

function watch(cdp) {
  const { Page, Runtime, Log, Network } = cdp;
  const note = (text) => current && current.problems.push(text);
  Runtime.exceptionThrown(({ exceptionDetails: d }) => {
    note(`uncaught exception: ${d.exception?.description ?? d.text} at ${d.url ?? ''}:${d.lineNumber}`);
  });
  Runtime.consoleAPICalled(({ type, args }) => {
    if (type === 'error' || type === 'assert') {
      note(`console.${type}: ${args.map((a) => a.value ?? a.description ?? a.type).join(' ')}`);
    }
  });
  Log.entryAdded(({ entry }) => {
    // The browser asks for /favicon.ico by itself; its 404 is no page's error.
    if (entry.level === 'error' && !(entry.source === 'network' && entry.url === `${origin}/favicon.ico`)) note(`log (${entry.source}): ${entry.text}${entry.url ? ` ${entry.url}` : ''}`);
  });
  Network.requestWillBeSent(({ request }) => {
    if (!current) return;
    const { url } = request;
    if (!url.startsWith(origin) && !/^(data|about|blob):/.test(url)) current.external.push(url);
  });
  Network.responseReceived(({ type, response }) => {
    if (current && type === 'Document' && !current.document) current.document = response;
  });
  Network.loadingFailed(({ errorText, canceled, type }) => {
    if (!canceled) note(`a ${type} failed to load: ${errorText}`);
  });
  Page.javascriptDialogOpening(({ type, message }) => {
    note(`a JavaScript ${type} dialog opened: ${message}`);
    Page.handleJavaScriptDialog({ accept: true }).catch(() => {});
  });
}

async function load(name, pathAndQuery) {
  const { Page } = client;
  current = { name, problems: [], external: [], document: null };
  const url = new URL(pathAndQuery, origin).href;
  const loaded = Page.loadEventFired();
  const { errorText } = await withTimeout(Page.navigate({ url }), PAGE_TIMEOUT_MS, `navigating to ${url}`);
  if (errorText) throw new Error(`navigating to ${url}: ${errorText}`);
  await withTimeout(loaded, PAGE_TIMEOUT_MS, `the load event of ${url}`);
  await sleep(SETTLE_MS);
  return url;
}

// Runs fn(arg) in the page and returns its result (JSON values only). fn is sent as its source, so
// it may use only the page's globals, its argument and chartProbe.
async function evaluate(fn, arg) {
  const expression =
    `(() => { const chartProbe = ${chartProbe}; return (${fn})(${JSON.stringify(arg ?? null)}); })()`;
  const { result, exceptionDetails } = await client.Runtime.evaluate({
    expression, returnByValue: true, awaitPromise: true,
  });
  if (exceptionDetails) {
    throw new Error(`probe failed: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
  }
  return result.value;
}

// What every page is checked for, gathered in the page.
function commonProbe() {
  const main = document.querySelector('main#page');
  const handlers = [];
  for (const element of document.querySelectorAll('*')) {
    for (const attribute of element.attributes) {
      if (/^on/i.test(attribute.name) && attribute.value.includes('__xss')) {
        handlers.push(`<${element.localName} ${attribute.name}>`);
      }
    }
  }
  return {
    dataPage: main ? main.getAttribute('data-page') : null,
    xss: typeof window.__xss === 'undefined' ? null : String(window.__xss),
    injectedScripts: [...document.scripts].filter((s) => s.textContent.includes('__xss')).length,
    injectedHandlers: handlers,
    charset: document.characterSet,
    text: document.body ? document.body.textContent : '',
  };
}

async function screenshot(name) {
  const { Page } = client;
  const metrics = await Page.getLayoutMetrics();
  const size = metrics.cssContentSize ?? metrics.contentSize;
  const width = Math.max(1, Math.ceil(size.width));
  const height = Math.max(1, Math.min(Math.ceil(size.height), MAX_SCREENSHOT_HEIGHT));
  const { data } = await withTimeout(Page.captureScreenshot({
    format: 'png', captureBeyondViewport: true, clip: { x: 0, y: 0, width, height, scale: 1 },
  }), PAGE_TIMEOUT_MS, 'the screenshot');
  const png = Buffer.from(data, 'base64');
  const file = path.join(SHOTS, `${name}.png`);
  fs.writeFileSync(file, png);
  return { file, bytes: png.length, width, height, isPng: png.subarray(1, 4).toString() === 'PNG' };
}

// Loads one page and runs its checks: the common ones, then `specific(facts)`, a list of
// [check, ok, detail] from the facts `probe` gathered in the page.
async function checkPage(name, pathAndQuery, dataPage, probe, probeArg, specific) {
  phase = `checking the ${name} page (${pathAndQuery})`;
  let url;
  try {
    url = await load(name, pathAndQuery);
  } catch (error) {
    record(name, `loads ${pathAndQuery}`, false, error.message);
    return;
  }
  const doc = current.document;
  const contentType = doc ? (doc.headers['content-type'] ?? doc.headers['Content-Type'] ?? '') : '';
  if (!record(name, `GET ${pathAndQuery} answers 200 with HTML`,
              doc && doc.status === 200 && /^text\/html/i.test(contentType),
              doc ? `status ${doc.status}, content-type ${JSON.stringify(contentType)}` : 'no document response')) {
    // A page that is not there has nothing else to check; its screenshot would mislead.
    fs.rmSync(path.join(SHOTS, `${name}.png`), { force: true });
    return;
  }
  let common, facts;
  try {
    common = await evaluate(commonProbe);
    facts = await evaluate(probe, probeArg);
  } catch (error) {
    record(name, 'can be inspected', false, error.message);
    return;
  }
  record(name, 'is UTF-8', /^utf-8$/i.test(common.charset) && /charset=utf-8/i.test(contentType),
         `document ${common.charset}, content-type ${JSON.stringify(contentType)}`);
  record(name, `has <main id="page" data-page="${dataPage}">`, common.dataPage === dataPage,
         `data-page ${JSON.stringify(common.dataPage)}`);
  for (const [check, ok, detail] of specific(facts, common)) record(name, check, Boolean(ok), detail ?? '');
  record(name, 'ran none of the planted markup (window.__xss, injected scripts and handlers)',
         common.xss === null && common.injectedScripts === 0 && common.injectedHandlers.length === 0,
         `window.__xss ${common.xss ?? 'undefined'}, ${common.injectedScripts} injected scripts, ` +
         `handlers: ${common.injectedHandlers.join(' ') || 'none'}`);
  record(name, 'no console error, exception, failed load or dialog', current.problems.length === 0,
         current.problems.slice(0, 5).join('; '));
  record(name, 'fetches nothing from another origin', current.external.length === 0,
         current.external.slice(0, 5).join(' '));
  try {
    const shot = await screenshot(name);
    record(name, 'full-page screenshot', shot.isPng && shot.bytes > 1000,
           `${shot.file}, ${shot.width}x${shot.height}, ${shot.bytes} bytes`);
  } catch (error) {
    record(name, 'full-page screenshot', false, error.message);
  }
  return url;
}

// ---------------------------------------------------------------------------------------------
// The page-specific probes (run in the page) and checks (run here).

const userPath = `/user/${LEADERBOARD.id}/${PLANTED_USER_ID}`;
const plantedPaths = [userPath, ...PLANTED.map((p) => `/submission/${p.submission_id}`)];

function chartProbe(selector) {
  const figure = document.querySelector(selector);
  const svg = figure ? figure.querySelector('svg.kbdata-chart') : null;
  const box = svg ? svg.getBoundingClientRect() : null;
  return {
    figures: document.querySelectorAll(selector).length,
    svg: Boolean(svg),
    series: svg ? svg.querySelectorAll('polyline, path').length : 0,
    width: box ? Math.round(box.width) : 0,
    height: box ? Math.round(box.height) : 0,
  };
}
const chartChecks = (chart) => [
  ['has a chart (figure.chart with svg.kbdata-chart)', chart.svg,
   `${chart.figures} figure.chart, svg.kbdata-chart ${chart.svg ? 'found' : 'missing'}`],
  ['the chart has series (polyline/path) and is visible', chart.series > 0 && chart.width > 0 && chart.height > 0,
   `${chart.series} series elements, ${chart.width}x${chart.height} px`],
];

function homeProbe() {
  const rows = [...document.querySelectorAll('table.leaderboards tr.leaderboard-row')];
  const targets = rows.map((row) => [...row.querySelectorAll('a[href]')]
    .map((a) => new URL(a.href).pathname).find((p) => /^\/leaderboard\/\d+$/.test(p)) ?? null);
  return { tables: document.querySelectorAll('table.leaderboards').length, rows: rows.length, targets };
}
const homeChecks = (f) => [
  ['has table.leaderboards with leaderboard-row rows', f.tables > 0 && f.rows > 0,
   `${f.tables} tables, ${f.rows} rows`],
  ['every row links to /leaderboard/ID', f.rows > 0 && f.targets.every((t) => t !== null),
   `${f.targets.filter((t) => t === null).length} rows without a link`],
  [`lists leaderboard ${LEADERBOARD.id}`, f.targets.includes(`/leaderboard/${LEADERBOARD.id}`), ''],
];

function leaderboardProbe(arg) {
  const tables = [...document.querySelectorAll('table.ranking')];
  const rows = [...document.querySelectorAll('table.ranking tr.rank-row')];
  const userLinks = [...document.querySelectorAll('table.ranking tr.rank-row a[href]')]
    .map((a) => new URL(a.href).pathname).filter((p) => p.startsWith('/user/'));
  const planted = rows.find((row) => [...row.querySelectorAll('a[href]')]
    .some((a) => new URL(a.href).pathname === arg.userPath));
  const chart = chartProbe('figure.chart');
  return {
    tables: tables.length, rows: rows.length, userLinks, chart,
    plantedRowText: planted ? planted.textContent : null,
  };
}
const leaderboardChecks = (f) => [
  ['has table.ranking with rank-row rows', f.tables > 0 && f.rows > 0, `${f.tables} tables, ${f.rows} rows`],
  [`user names link to /user/${LEADERBOARD.id}/USER_ID`,
   f.userLinks.length > 0 && f.userLinks.every((p) => p.startsWith(`/user/${LEADERBOARD.id}/`)),
   `${f.userLinks.length} user links; first ${f.userLinks[0] ?? 'none'}`],
  ['ranks the planted user, the name shown as text', f.plantedRowText?.includes(PLANTED_USER_NAME),
   f.plantedRowText === null ? `no row links to ${userPath}` : `row text ${JSON.stringify(clip(f.plantedRowText, 160))}`],
  ...chartChecks(f.chart),
];

function userProbe() {
  const diff = document.querySelector('table.diff');
  return {
    chart: chartProbe('figure.chart'),
    submissionRows: document.querySelectorAll('table.submissions tr.submission-row').length,
    diffTables: document.querySelectorAll('table.diff').length,
    add: document.querySelectorAll('table.diff tr.add').length,
    del: document.querySelectorAll('table.diff tr.del').length,
    ctx: document.querySelectorAll('table.diff tr.ctx').length,
    diffText: diff ? diff.textContent : '',
  };
}
const userChecks = (f, common) => [
  ...chartChecks(f.chart),
  [`lists the planted user's ${PLANTED.length} submissions (table.submissions tr.submission-row)`,
   f.submissionRows >= PLANTED.length, `${f.submissionRows} rows`],
  ['has a diff with added and deleted lines (table.diff tr.add, tr.del)',
   f.diffTables > 0 && f.add > 0 && f.del > 0, `${f.diffTables} tables, ${f.add} add, ${f.del} del, ${f.ctx} ctx rows`],
  ['the diff shows the planted code as text', f.diffText.includes(HOSTILE_LINE),
   f.diffText.includes(HOSTILE_LINE) ? '' : `the diff's text ${f.diffText.includes('__xss') ? 'has __xss but not the literal line' : 'lacks __xss'}`],
  ['shows the planted user name as text', common.text.includes(PLANTED_USER_NAME), ''],
];

function submissionProbe() {
  const meta = document.querySelector('dl.meta');
  const code = document.querySelector('pre.code');
  const verdict = document.querySelector('span.verdict');
  return {
    meta: meta ? meta.textContent : null,
    code: code ? code.textContent : null,
    tokens: code ? code.querySelectorAll('span[class^="tok-"], span[class*=" tok-"]').length : 0,
    verdict: verdict ? verdict.textContent.trim() : null,
  };
}
const submissionChecks = (f) => [
  ['has dl.meta', f.meta !== null, ''],
  ['the metadata shows the planted user and file names as text',
   f.meta !== null && f.meta.includes(PLANTED_USER_NAME) && f.meta.includes(PLANTED_FILE_NAME),
   f.meta === null ? '' : `user name ${f.meta.includes(PLANTED_USER_NAME) ? 'found' : 'missing'}, ` +
                          `file name ${f.meta.includes(PLANTED_FILE_NAME) ? 'found' : 'missing'}`],
  ['has the code in pre.code, as text', f.code !== null && f.code.includes(HOSTILE_LINE) && f.code.includes(ENTITY_LINE),
   f.code === null ? 'no pre.code' : `hostile line ${f.code.includes(HOSTILE_LINE) ? 'found' : 'missing'}, ` +
                                     `entity line ${f.code.includes(ENTITY_LINE) ? 'found' : 'missing'}`],
  ['the code keeps non-ASCII text (UTF-8)', f.code !== null && f.code.includes(UTF8_LINE), ''],
  ['the code is highlighted (span.tok-*)', f.tokens > 0, `${f.tokens} token spans`],
  ['has an audit verdict (span.verdict)', Boolean(f.verdict), `verdict ${JSON.stringify(f.verdict)}`],
];

// A sample submission whose user sent near-identical versions: its near-duplicates section.
const NEAR_SUBMISSION = 30000856;
function nearProbe() {
  const rows = [...document.querySelectorAll('table.near tr.near-row')];
  return {
    heading: [...document.querySelectorAll('h2')].some((h) => h.textContent === 'Near-duplicates'),
    rows: rows.length,
    links: rows.filter((r) => r.querySelector('a[href^="/submission/"]')).length,
    similarities: rows.map((r) => r.querySelectorAll('td')[4]?.textContent ?? ''),
  };
}
const nearChecks = (f) => [
  ['has the Near-duplicates section', f.heading, ''],
  ['lists near-duplicates (table.near tr.near-row), each linked to its submission',
   f.rows > 0 && f.links === f.rows, `${f.rows} rows, ${f.links} linked`],
  ['each similarity is a percentage of at least 80%',
   f.similarities.length > 0 && f.similarities.every((s) => /^\d+%$/.test(s) && parseInt(s, 10) >= 80),
   f.similarities.join(' ')],
];

function searchProbe(arg) {
  const items = [...document.querySelectorAll('ul.results li')];
  const links = [...document.querySelectorAll('ul.results li a[href]')].map((a) => new URL(a.href).pathname);
  return { lists: document.querySelectorAll('ul.results').length, items: items.length, links,
           hit: links.filter((p) => arg.plantedPaths.includes(p)) };
}
const searchChecks = (f) => [
  ['has ul.results with li links', f.lists > 0 && f.items > 0 && f.links.length > 0,
   `${f.lists} lists, ${f.items} items, ${f.links.length} links`],
  ['finds the planted user (a link to their page or a submission)', f.hit.length > 0,
   `links: ${f.links.slice(0, 5).join(' ') || 'none'}`],
];

// ---------------------------------------------------------------------------------------------
// The JSON twins, fetched from here.

function deepStrings(value, out = []) {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) value.forEach((v) => deepStrings(v, out));
  else if (value && typeof value === 'object') Object.entries(value).forEach(([k, v]) => { out.push(k); deepStrings(v, out); });
  else if (value !== null && value !== undefined) out.push(String(value));
  return out;
}

async function checkApi(pathAndQuery, mustContain = []) {
  phase = `fetching ${pathAndQuery}`;
  const page = 'api';
  let response, body;
  try {
    response = await fetch(new URL(pathAndQuery, origin), { signal: AbortSignal.timeout(PAGE_TIMEOUT_MS) });
    body = await response.text();
  } catch (error) {
    record(page, `GET ${pathAndQuery}`, false, error.message);
    return;
  }
  const type = response.headers.get('content-type') ?? '';
  let json;
  try { json = JSON.parse(body); } catch {}
  if (!record(page, `GET ${pathAndQuery} answers 200 application/json that parses`,
              response.status === 200 && /^application\/json/i.test(type) && json !== undefined,
              `status ${response.status}, content-type ${JSON.stringify(type)}, ` +
              (json === undefined ? `body ${JSON.stringify(clip(body, 120))}` : 'valid JSON'))) return;
  const strings = deepStrings(json);
  for (const [what, text] of mustContain) {
    record(page, `${pathAndQuery} has ${what}`, strings.some((s) => s.includes(text)), '');
  }
}

// The leaderboard page's form, used as a reader would: a score typed and the button pressed; the
// page it leads to places the score (a table, a row in the ranking, a line on the record curve).
async function checkPlacement() {
  const name = 'placement';
  phase = 'placing a score with the leaderboard page\'s form';
  try {
    await load(name, `/leaderboard/${LEADERBOARD.id}`);
    const navigated = client.Page.loadEventFired();
    const found = await evaluate(() => {
      const form = document.querySelector('form.place');
      if (!form) return false;
      form.querySelector('input[name=score]').value = '20us';
      form.querySelector('button').click();
      return true;
    });
    if (!record(name, 'the leaderboard page has form.place', found, '')) return;
    await withTimeout(navigated, PAGE_TIMEOUT_MS, 'the page the form leads to');
    await sleep(SETTLE_MS);
    const f = await evaluate(() => ({
      url: location.pathname + location.search,
      placements: document.querySelectorAll('table.placement tr.placed').length,
      placedRows: document.querySelectorAll('table.ranking tr.placed-row').length,
      line: document.querySelectorAll('svg.kbdata-chart g.series[data-name^="the score placed"]').length,
      value: document.querySelector('form.place input[name=score]')?.value ?? null,
    }));
    // With more than one runner the form also sends runner= (empty: every runner).
    const asked = new URL(f.url, origin);
    record(name, 'the form asks for the leaderboard page with score=20us',
           asked.pathname === `/leaderboard/${LEADERBOARD.id}` && asked.searchParams.get('score') === '20us',
           f.url);
    record(name, 'the placement is a table row per runner', f.placements > 0, `${f.placements} rows`);
    record(name, 'the ranking shows the score where it falls', f.placedRows > 0, `${f.placedRows} rows`);
    record(name, 'the record curve has a line at the score', f.line === 1, `${f.line} series`);
    record(name, 'the form keeps the score typed', f.value === '20us', JSON.stringify(f.value));
    record(name, 'no console error, exception, failed load or dialog', current.problems.length === 0,
           current.problems.slice(0, 5).join('; '));
  } catch (error) {
    record(name, 'places a score through the form', false, error.message);
  }
}

// ---------------------------------------------------------------------------------------------
// The run.

try {
  fs.mkdirSync(SHOTS, { recursive: true });
  for (const name of ['home', 'leaderboard', 'user', 'submission', 'near-duplicates', 'search']) {
    fs.rmSync(path.join(SHOTS, `${name}.png`), { force: true });
  }
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kbdata-browser-'));
  const dataDir = path.join(tmp, 'data');
  phase = 'writing the data folder';
  await makeData(dataDir);

  phase = 'starting kbdata serve';
  try {
    origin = new URL(await startServer(dataDir)).origin;
    record('server', 'prints its URL line', true, `${origin}/`);
  } catch (error) {
    await fatal('server', 'prints "kbdata: serving DIR at http://127.0.0.1:PORT/"', error);
  }

  phase = 'starting chromium';
  try {
    const { host, port } = await startBrowser(path.join(tmp, 'profile'));
    client = await withTimeout(CDP({ host, port, local: true }), START_TIMEOUT_MS, 'the DevTools connection');
    watch(client);
    await Promise.all([client.Page.enable(), client.Runtime.enable(), client.Log.enable(),
                       client.Network.enable()]);
    await client.Emulation.setDeviceMetricsOverride({ ...VIEWPORT, deviceScaleFactor: 1, mobile: false });
  } catch (error) {
    await fatal('browser', 'starts and accepts a DevTools connection',
                new Error(`${error.message}${browser?.stderr ? `; stderr: ${clip(browser.stderr, 600)}` : ''}`));
  }

  await checkPage('home', '/', 'home', homeProbe, null, homeChecks);
  await checkPage('leaderboard', `/leaderboard/${LEADERBOARD.id}`, 'leaderboard',
                  leaderboardProbe, { userPath }, leaderboardChecks);
  await checkPlacement();
  await checkPage('user', userPath, 'user', userProbe, null, userChecks);
  await checkPage('submission', `/submission/${HOSTILE_SUBMISSION}`, 'submission', submissionProbe, null,
                  submissionChecks);
  await checkPage('near-duplicates', `/submission/${NEAR_SUBMISSION}`, 'submission', nearProbe, null,
                  nearChecks);
  await checkPage('search', `/search?q=${encodeURIComponent(PLANTED_USER_NAME)}`, 'search',
                  searchProbe, { plantedPaths }, searchChecks);

  await checkApi('/api/configs', [['the nvfp4 config', 'nvidia_nvfp4_submissions']]);
  await checkApi(`/api/leaderboard/${LEADERBOARD.id}`, [['the planted user', PLANTED_USER_ID]]);
  await checkApi(`/api/user/${LEADERBOARD.id}/${PLANTED_USER_ID}`, [['the planted user name', PLANTED_USER_NAME]]);
  await checkApi(`/api/submission/${HOSTILE_SUBMISSION}`, [['the planted code, unescaped', HOSTILE_LINE],
                                                           ['the planted file name, unescaped', PLANTED_FILE_NAME]]);
  await checkApi(`/api/search?q=${encodeURIComponent(PLANTED_USER_NAME)}`, [['the planted user', PLANTED_USER_ID]]);

  phase = 'stopping';
  await finish(true);
} catch (error) {
  await fatal('test', `runs (while ${phase})`, error.stack ?? error);
}
