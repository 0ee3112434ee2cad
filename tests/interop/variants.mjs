#!/usr/bin/env node
// The data model's type matrix (docs/data-model.md, "Accepted column types"): a flat config file is
// rewritten by DuckDB and by polars with each column in the other types real writers produce
// (integers of any width and signedness, DOUBLE and DECIMAL ids, ids as text, user ids as
// integers, binary and dictionary/categorical/enum strings, timestamps in ms/us/ns with and
// without UTC, 0/1 integers for `passed`, optional columns left out), and kbdata must give the same
// answers on every variant as on the canonical file: `submissions`, `top` of every problem,
// `dedup --exact` and `stats`. Types kbdata cannot read must be refused in one line naming the
// file, the column, its type and what was expected; values it cannot hold, naming the row.
//
//   node tests/interop/variants.mjs KBDATA_BINARY OUTPUT_DIR
//
// OUTPUT_DIR is emptied first and removed when everything passes. Prints one line per failure and
// a summary; exits 1 on any failure, including missing peers (run scripts/install-deps).
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const PEERS = path.join(REPO, 'tools', 'peers');

if (process.argv.length !== 4) {
  console.error('usage: node tests/interop/variants.mjs KBDATA_BINARY OUTPUT_DIR');
  process.exit(2);
}
const KBDATA = path.resolve(process.argv[2]);
const OUT = path.resolve(process.argv[3]);

function die(message) {
  console.error(`variants: ${message}`);
  process.exit(1);
}

const requirePeer = createRequire(path.join(PEERS, 'package.json'));
let DuckDBInstance, pl;
try {
  ({ DuckDBInstance } = requirePeer('@duckdb/node-api'));
  pl = requirePeer('nodejs-polars');
} catch (error) {
  die(`cannot load the npm peers from ${PEERS}/node_modules (${error.message.split('\n')[0]}); ` +
      'run scripts/install-deps');
}
if (!fs.existsSync(KBDATA)) die(`no kbdata binary at ${KBDATA}; build it first`);

fs.rmSync(OUT, { recursive: true, force: true });
fs.mkdirSync(OUT, { recursive: true });

// The file name keeps the registry's config (nvidia_nvfp4_submissions) in every folder, so that
// every output names the same config and carries the same notes.
const FILE = 'nvidia_nvfp4_submissions.parquet';
const failures = [];
const fail = (variant, what) => failures.push(`${variant}: ${what}`);

function kbdata(args) {
  const r = spawnSync(KBDATA, args, { maxBuffer: 1 << 28, encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

// 1. The canonical file: synth's NVFP4 config, times cut to milliseconds (so that a millisecond
// variant holds the same instants), written by DuckDB.
const synth = path.join(OUT, 'synth');
{
  const r = kbdata(['synth', '-o', synth, '--family', 'flat', '--scale', 'small', '--seed', '5']);
  if (r.code !== 0) die(`kbdata synth failed: ${r.err.trim()}`);
}
const duck = await (await DuckDBInstance.create(':memory:', { threads: '2' })).connect();
const sql = async (text) => duck.run(text);
const rowsOf = async (text) => (await duck.runAndReadAll(text)).getRowObjectsJson();
await sql(`SET TimeZone = 'UTC'`);
await sql(`CREATE TABLE c AS SELECT * REPLACE (date_trunc('millisecond', submission_time)
           AS submission_time) FROM '${path.join(synth, FILE)}'`);
const folder = (name) => {
  const dir = path.join(OUT, name);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
};
const canonicalDir = folder('canonical');
await sql(`COPY c TO '${path.join(canonicalDir, FILE)}' (FORMAT parquet)`);
const problems = (await rowsOf('SELECT DISTINCT problem_name AS p FROM c ORDER BY 1')).map((r) => r.p);

// 2. The variants. DuckDB: a SELECT over the canonical table `c`; polars: a function of the
// canonical frame. Each names what it varies.
await sql(`CREATE TYPE problem_enum AS ENUM (SELECT DISTINCT problem_name FROM c
           WHERE problem_name IS NOT NULL ORDER BY 1)`);
await sql(`CREATE TYPE status_enum AS ENUM (SELECT DISTINCT status FROM c
           WHERE status IS NOT NULL ORDER BY 1)`);
const DUCKDB = {
  'ids DOUBLE and FLOAT': `SELECT * REPLACE (submission_id::DOUBLE AS submission_id,
      leaderboard_id::FLOAT AS leaderboard_id, code_id::DOUBLE AS code_id) FROM c`,
  'ids INTEGER and SMALLINT': `SELECT * REPLACE (submission_id::INTEGER AS submission_id,
      leaderboard_id::SMALLINT AS leaderboard_id, code_id::INTEGER AS code_id) FROM c`,
  'ids unsigned': `SELECT * REPLACE (submission_id::UBIGINT AS submission_id,
      leaderboard_id::USMALLINT AS leaderboard_id, code_id::UINTEGER AS code_id,
      user_id::UBIGINT AS user_id) FROM c`,
  'ids DECIMAL': `SELECT * REPLACE (submission_id::DECIMAL(18,0) AS submission_id,
      leaderboard_id::DECIMAL(4,0) AS leaderboard_id, code_id::DECIMAL(38,0) AS code_id) FROM c`,
  'ids as text, user_id BIGINT': `SELECT * REPLACE (submission_id::VARCHAR AS submission_id,
      leaderboard_id::VARCHAR AS leaderboard_id, code_id::VARCHAR AS code_id,
      user_id::BIGINT AS user_id) FROM c`,
  'strings BLOB': `SELECT * REPLACE (encode(problem_name) AS problem_name,
      encode(user_name) AS user_name, encode(file_name) AS file_name, encode(status) AS status,
      encode(mode) AS mode, encode(runner) AS runner, encode(code) AS code) FROM c`,
  'strings ENUM': `SELECT * REPLACE (problem_name::problem_enum AS problem_name,
      status::status_enum AS status) FROM c`,
  'time TIMESTAMP_NS naive': `SELECT * REPLACE (submission_time::TIMESTAMP_NS AS submission_time)
      FROM c`,
  'time TIMESTAMP_MS naive': `SELECT * REPLACE (submission_time::TIMESTAMP_MS AS submission_time)
      FROM c`,
  'time TIMESTAMP naive': `SELECT * REPLACE (submission_time::TIMESTAMP AS submission_time) FROM c`,
  'passed TINYINT': `SELECT * REPLACE (passed::TINYINT AS passed) FROM c`,
  'passed INTEGER': `SELECT * REPLACE (passed::INTEGER AS passed) FROM c`,
};
const POLARS = {
  'as written by polars': (df) => df,
  'ids Float64, Int32, UInt16; user_id Int64': (df) => df.withColumns(
    pl.col('code_id').cast(pl.Float64), pl.col('submission_id').cast(pl.Int32),
    pl.col('leaderboard_id').cast(pl.UInt16), pl.col('user_id').cast(pl.Int64)),
  'ids UInt64 and UInt32': (df) => df.withColumns(
    pl.col('submission_id').cast(pl.UInt64), pl.col('code_id').cast(pl.UInt32)),
  'ids as text': (df) => df.withColumns(
    pl.col('submission_id').cast(pl.Utf8), pl.col('code_id').cast(pl.Utf8)),
  'strings Categorical': (df) => df.withColumns(
    pl.col('problem_name').cast(pl.Categorical), pl.col('status').cast(pl.Categorical),
    pl.col('runner').cast(pl.Categorical), pl.col('mode').cast(pl.Categorical)),
  'time ms naive': (df) => df.withColumns(pl.col('submission_time').cast(pl.Datetime('ms'))),
  'time ns UTC': (df) => df.withColumns(pl.col('submission_time').cast(pl.Datetime('ns', 'UTC'))),
  'passed Int8': (df) => df.withColumns(pl.col('passed').cast(pl.Int8)),
  'passed UInt8': (df) => df.withColumns(pl.col('passed').cast(pl.UInt8)),
};

const variants = [];  // { name, dir }
let n = 0;
for (const [name, select] of Object.entries(DUCKDB)) {
  const dir = folder(`duckdb-${++n}`);
  await sql(`COPY (${select}) TO '${path.join(dir, FILE)}' (FORMAT parquet)`);
  variants.push({ name: `duckdb: ${name}`, dir });
}
const frame = pl.readParquet(path.join(canonicalDir, FILE));
for (const [name, change] of Object.entries(POLARS)) {
  const dir = folder(`polars-${++n}`);
  change(frame).writeParquet(path.join(dir, FILE));
  variants.push({ name: `polars: ${name}`, dir });
}

// 3. What kbdata answers on a folder: each command's stdout, or a failure.
function answers(label, dir) {
  const out = {};
  const take = (key, args) => {
    const r = kbdata(args);
    if (r.code !== 0) {
      fail(label, `kbdata ${args.join(' ')} exited ${r.code}: ${r.err.trim()}`);
      out[key] = null;
    } else {
      out[key] = r.out;
    }
  };
  take('submissions', ['submissions', '--data', dir, '-f', 'jsonl', '--with-code']);
  for (const p of problems) take(`top ${p}`, ['top', '--data', dir, '-p', p, '-n', '0', '-f', 'jsonl']);
  take('stats', ['stats', '--data', dir, '-f', 'jsonl']);
  const deduped = path.join(OUT, `dedup-${path.basename(dir)}.parquet`);
  const d = kbdata(['dedup', path.join(dir, FILE), deduped, '--exact']);
  if (d.code !== 0) {
    fail(label, `kbdata dedup --exact exited ${d.code}: ${d.err.trim()}`);
  } else {
    take('dedup --exact', ['cat', deduped]);
  }
  return out;
}

function firstDifference(a, b) {
  const x = a.split('\n');
  const y = b.split('\n');
  for (let i = 0; i < Math.max(x.length, y.length); ++i) {
    if (x[i] !== y[i]) return `line ${i + 1}: ${(x[i] ?? '(none)').slice(0, 160)} vs ${(y[i] ?? '(none)').slice(0, 160)}`;
  }
  return 'equal';
}

const canonical = answers('canonical', canonicalDir);
const rowCount = (canonical.submissions ?? '').split('\n').filter(Boolean).length;
if (rowCount < 100) fail('canonical', `only ${rowCount} submissions: the comparison would be weak`);
if (problems.every((p) => !(canonical[`top ${p}`] ?? '').trim())) fail('canonical', 'no ranking');
let compared = 0;
for (const v of variants) {
  const got = answers(v.name, v.dir);
  for (const [key, want] of Object.entries(canonical)) {
    if (want === null || got[key] === undefined || got[key] === null) continue;
    ++compared;
    if (got[key] !== want) fail(v.name, `${key} differs from the canonical file's: ${firstDifference(got[key], want)}`);
  }
}

// 4. Optional columns left out: the rest of every submission is the same.
{
  const dir = folder('missing-optional');
  await sql(`COPY (SELECT * EXCLUDE (user_name, runner, mode, status) FROM c)
             TO '${path.join(dir, FILE)}' (FORMAT parquet)`);
  const r = kbdata(['submissions', '--data', dir, '-f', 'jsonl', '--with-code']);
  if (r.code !== 0) {
    fail('missing optional columns', `kbdata submissions exited ${r.code}: ${r.err.trim()}`);
  } else {
    const strip = (text) => text.split('\n').filter(Boolean).map((line) => {
      const o = JSON.parse(line);
      for (const k of ['user_name', 'runner', 'mode', 'status', 'note']) delete o[k];
      return JSON.stringify(o);
    }).join('\n');
    const rows = r.out.split('\n').filter(Boolean).map((line) => JSON.parse(line));
    if (rows.some((o) => o.user_name !== null || o.runner !== null || o.mode !== null)) {
      fail('missing optional columns', 'user_name, runner or mode is not null');
    }
    ++compared;
    if (strip(r.out) !== strip(canonical.submissions ?? '')) {
      fail('missing optional columns', `submissions differ: ${firstDifference(strip(r.out), strip(canonical.submissions ?? ''))}`);
    }
  }
}

// 5. What kbdata cannot read is refused in one line, exit 1, naming what it must.
const REFUSED = {
  'submission_time as text': [`SELECT * REPLACE (submission_time::VARCHAR AS submission_time) FROM c`,
    ["column 'submission_time'", 'BYTE_ARRAY (STRING)', 'a timestamp']],
  'code_id as a list': [`SELECT * REPLACE ([code_id] AS code_id) FROM c`,
    ["column 'code_id'", 'nested', 'an integer id']],
  'a fractional code_id': [`SELECT * REPLACE (CASE WHEN submission_id = (SELECT max(submission_id) FROM c)
      THEN code_id + 0.5 ELSE code_id END::DOUBLE AS code_id) FROM c`,
    ["column 'code_id'", 'row ', 'is not an integer id']],
  'passed as 2': [`SELECT * REPLACE (CASE WHEN passed THEN 2 ELSE 0 END::TINYINT AS passed) FROM c`,
    ["column 'passed'", 'row ', '2 is not a boolean']],
};
for (const [name, [select, parts]] of Object.entries(REFUSED)) {
  const dir = folder(`refused-${++n}`);
  const file = path.join(dir, FILE);
  await sql(`COPY (${select}) TO '${file}' (FORMAT parquet)`);
  const r = kbdata(['submissions', '--data', dir, '-f', 'jsonl']);
  const lines = r.err.split('\n').filter(Boolean);
  if (r.code !== 1) fail(`refused: ${name}`, `exit ${r.code}, not 1 (${r.err.trim()})`);
  else if (lines.length !== 1 || !lines[0].startsWith('kbdata: ')) fail(`refused: ${name}`, `not one line: ${r.err}`);
  else {
    for (const p of [file, ...parts]) {
      if (!lines[0].includes(p)) fail(`refused: ${name}`, `'${p}' not in: ${lines[0]}`);
    }
  }
}

for (const f of failures) console.error(`variants: ${f}`);
if (failures.length > 0) {
  console.error(`variants: ${failures.length} failure(s); outputs kept in ${OUT}`);
  process.exit(1);
}
fs.rmSync(OUT, { recursive: true, force: true });
console.log(`variants: ${variants.length} variants (${Object.keys(DUCKDB).length} DuckDB, ` +
            `${Object.keys(POLARS).length} polars), ${compared} outputs identical to the ` +
            `canonical file's; ${Object.keys(REFUSED).length} unreadable types refused`);
