#!/usr/bin/env node
// The writer's interop test: files written by `kbdata convert` must read back identically in three
// independent readers (DuckDB, polars, hyparquet), and kbdata must read what DuckDB and polars
// write. See README.md beside this file.
//
//   node tests/interop/interop.mjs KBDATA_BINARY OUTPUT_DIR
//
// OUTPUT_DIR is emptied first and removed when everything passes (kept for a look otherwise).
// Prints one line per failure (file, options, reader, what differs) and a summary line; exits 1 on
// any failure, including missing peers (run scripts/install-deps).
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const PEERS = path.join(REPO, 'tools', 'peers');
const started = Date.now();

if (process.argv.length !== 4) {
  console.error('usage: node tests/interop/interop.mjs KBDATA_BINARY OUTPUT_DIR');
  process.exit(2);
}
const KBDATA = path.resolve(process.argv[2]);
const OUT = path.resolve(process.argv[3]);

function die(message) {
  console.error(`interop: ${message}`);
  process.exit(1);
}

const requirePeer = createRequire(path.join(PEERS, 'package.json'));
let DuckDBInstance, pl, hyparquet, compressors, parquetHeader, readColumnIndex, readOffsetIndex;
try {
  ({ DuckDBInstance } = requirePeer('@duckdb/node-api'));
  pl = requirePeer('nodejs-polars');
  const peerUrl = (name) => pathToFileURL(requirePeer.resolve(name)).href;
  hyparquet = await import(peerUrl('hyparquet'));
  ({ compressors } = await import(peerUrl('hyparquet-compressors')));
  ({ parquetHeader } = await import(peerUrl('hyparquet/src/column.js')));
  ({ readColumnIndex, readOffsetIndex } = await import(peerUrl('hyparquet/src/indexes.js')));
} catch (error) {
  die(`cannot load the npm peers from ${PEERS}/node_modules (${error.message.split('\n')[0]}); ` +
      'run scripts/install-deps');
}
if (!fs.existsSync(KBDATA)) die(`no kbdata binary at ${KBDATA}; build it first`);

fs.rmSync(OUT, { recursive: true, force: true });
fs.mkdirSync(OUT, { recursive: true });

// ---------------------------------------------------------------------------------------------
// Source tables, built by DuckDB SQL. Every table has a unique `id`-like first column so that row
// order never matters to the set comparisons, and NULLs at every nesting level.

// Enough rows for two of DuckDB's row groups (written with ROW_GROUP_SIZE 8192) in every source;
// kbdata's own row groups and pages are split by the small sizes some runs ask for. More rows only
// cost time: hyparquet and DuckDB's EXCEPT ALL dominate the runtime and grow with them.
const ROWS = 10000;

// Every flat type kbdata writes, with extremes, NaN and infinities, -0.0, pre-1970 instants,
// empty and non-ASCII strings, empty blobs, and a few ~100 KB strings among short repeated ones (so
// one column has both a dictionary and values too long for it).
const TYPES_SQL = `
SELECT i::BIGINT AS id,
  CASE WHEN i % 7 = 0 THEN NULL ELSE i % 3 = 0 END AS flag,
  CASE WHEN i % 11 = 0 THEN NULL ELSE (i % 256 - 128)::TINYINT END AS i8,
  ((i * 7) % 65536 - 32768)::SMALLINT AS i16,
  CASE i WHEN 1 THEN -2147483648 WHEN 2 THEN 2147483647
         ELSE ((i * 2654435761) % 4294967296 - 2147483648) END::INTEGER AS i32,
  CASE i WHEN 1 THEN -9223372036854775808 WHEN 2 THEN 9223372036854775807
         ELSE (hash(i) >> 1)::BIGINT - 4611686018427387904 END::BIGINT AS i64,
  (hash(i) >> 56)::UTINYINT AS u8,
  (hash(i) >> 48)::USMALLINT AS u16,
  CASE WHEN i % 13 = 0 THEN NULL ELSE (hash(i) >> 32)::UINTEGER END AS u32,
  CASE i WHEN 1 THEN 0 WHEN 2 THEN 18446744073709551615 ELSE hash(i) END::UBIGINT AS u64,
  CASE i WHEN 3 THEN 'nan'::FLOAT WHEN 4 THEN 'inf'::FLOAT WHEN 5 THEN '-inf'::FLOAT
         WHEN 6 THEN -0.0::FLOAT WHEN 7 THEN NULL ELSE (i / 3.0 - 3000)::FLOAT END AS f32,
  CASE i WHEN 3 THEN 'nan'::DOUBLE WHEN 4 THEN 'inf'::DOUBLE WHEN 5 THEN '-inf'::DOUBLE
         WHEN 6 THEN -0.0::DOUBLE WHEN 8 THEN NULL ELSE (i / 7.0 - 1000) END::DOUBLE AS f64,
  CASE WHEN i % 17 = 0 THEN NULL ELSE ((i - 5000) * 2.74)::DECIMAL(9,2) END AS dec9,
  ((i - 5000) * 24691.3578)::DECIMAL(18,4) AS dec18,
  CASE WHEN i % 19 = 0 THEN NULL
       ELSE (CASE WHEN i % 2 = 1 THEN '-' ELSE '' END || (hash(i) % 10000000000000000000)::VARCHAR
             || '.' || lpad(i::VARCHAR, 10, '0'))::DECIMAL(38,10) END AS dec38,
  CASE WHEN i % 23 = 0 THEN NULL WHEN i % 5 = 0 THEN ''
       ELSE 'héllo ' || i || ' 日本語 🚀' END AS s,
  CASE WHEN i % 3000 = 17 THEN repeat('long text ü ', 9000) || i
       WHEN i % 29 = 0 THEN NULL ELSE 'short ' || (i % 50) END AS txt,
  CASE WHEN i % 9 = 0 THEN NULL WHEN i % 10 = 1 THEN ''::BLOB
       ELSE '\\x00\\xFF\\x80'::BLOB || i::VARCHAR::BLOB END AS bin,
  CASE WHEN i % 31 = 0 THEN NULL ELSE DATE '1970-01-01' + ((i - 5000) * 6)::INTEGER END AS d,
  make_time(i % 24, i % 60, (i % 60) + (i % 1000) / 1000.0) AS t,
  CASE WHEN i % 37 = 0 THEN NULL ELSE make_timestamp((i - 5000)::BIGINT * 246913578024) END AS ts,
  make_timestamp_ns((i - 5000)::BIGINT * 246913578024690 + i) AS ts_ns,
  make_timestamp((i - 5000)::BIGINT * 987654321)::TIMESTAMPTZ AS tstz,
  CASE WHEN i % 41 = 0 THEN NULL ELSE md5(i::VARCHAR)::UUID END AS uid
FROM range(${ROWS}) r(i)`;

// Nesting: struct (with a nested struct), list, list of struct, struct with list, map, list of
// lists; NULL at each level, empty lists and maps, lists holding NULL.
const NESTED_SQL = `
SELECT i::BIGINT AS id,
  CASE WHEN i % 10 = 0 THEN NULL
       ELSE {'a': CASE WHEN i % 10 = 1 THEN NULL ELSE i::INTEGER END,
             'b': CASE WHEN i % 4 = 0 THEN NULL ELSE 'b' || i END,
             'inner': CASE WHEN i % 10 = 2 THEN NULL
                           ELSE {'x': i / 4.0, 'y': CASE WHEN i % 3 = 0 THEN NULL ELSE i % 3 = 1 END} END}
  END AS st,
  CASE i % 10 WHEN 0 THEN NULL WHEN 1 THEN []::INTEGER[] WHEN 2 THEN [NULL]::INTEGER[]
       ELSE list_transform(range(i % 7), x -> CASE WHEN x = 3 THEN NULL ELSE (x * i)::INTEGER END) END
  AS li,
  CASE i % 9 WHEN 0 THEN NULL WHEN 1 THEN [] WHEN 2 THEN [NULL]
       ELSE list_transform(range(i % 4),
              x -> CASE WHEN x = 2 THEN NULL
                        ELSE {'k': 'k' || x, 'v': CASE WHEN x = 1 THEN NULL ELSE (i * x)::BIGINT END} END)
  END AS los,
  CASE WHEN i % 8 = 0 THEN NULL
       ELSE {'name': 'n' || (i % 100),
             'tags': CASE i % 8 WHEN 1 THEN NULL WHEN 2 THEN []::VARCHAR[]
                     ELSE list_transform(range(i % 5), x -> CASE WHEN x = 1 THEN NULL ELSE 't' || x END) END}
  END AS swl,
  CASE i % 6 WHEN 0 THEN NULL WHEN 1 THEN MAP {}::MAP(VARCHAR, INTEGER)
       ELSE map_from_entries(list_transform(range(i % 5),
              x -> {'k': 'key' || x, 'v': CASE WHEN x = 1 THEN NULL ELSE (i + x)::INTEGER END})) END
  AS m,
  CASE i % 11 WHEN 0 THEN NULL WHEN 1 THEN []::DOUBLE[][] WHEN 2 THEN [[], NULL]::DOUBLE[][]
       ELSE list_transform(range(i % 4),
              x -> CASE WHEN x = 2 THEN NULL
                        ELSE list_transform(range(x + 1), y -> CASE WHEN y = 1 THEN NULL ELSE i * 0.5 + y END) END)
  END AS lol
FROM range(${ROWS}) r(i)`;

// The flat KernelBot submission shape, with code texts of a few KB.
const KERNELBOT_ROWS = 4000;
const KERNELBOT_SQL = `
SELECT (1000000 + i * 7)::BIGINT AS submission_id,
  (i % 13 + 1)::INTEGER AS leaderboard_id,
  'u' || lpad((hash(i % 300) % 100000)::VARCHAR, 6, '0') AS user_id,
  CASE WHEN i % 50 = 0 THEN NULL ELSE 'user_' || (i % 300) || CASE WHEN i % 3 = 0 THEN ' ü' ELSE '' END END
    AS user_name,
  '#include <cuda_runtime.h>\\n// submission ' || i || '\\n' ||
    repeat('__global__ void k' || (i % 17) || '(float* x) { x[threadIdx.x] *= 2.0f; }\\n', 10 + i % 90)
    AS code,
  make_timestamp(1735689600000000 + i::BIGINT * 61000123)::TIMESTAMPTZ AS submission_time,
  CASE WHEN i % 6 = 0 THEN NULL ELSE (i % 1000) * 0.001234 + 0.5 END::DOUBLE AS score,
  i % 4 != 0 AS passed,
  ['B200', 'H100', 'MI300', 'A100'][i % 4 + 1] AS runner,
  CASE WHEN i % 4 = 0 THEN 'failed' ELSE 'succeeded' END AS status
FROM range(${KERNELBOT_ROWS}) r(i)`;

const TABLES = [
  { name: 'types', sql: TYPES_SQL },
  { name: 'nested', sql: NESTED_SQL },
  { name: 'kernelbot', sql: KERNELBOT_SQL },
];

// ---------------------------------------------------------------------------------------------
// The matrix of `kbdata convert` runs, chosen so that every codec, both page versions, every
// encoding choice, small pages and row groups, byte-suffixed sizes, levels and checksums each meet
// both the flat and the nested table, while the whole test stays near a minute on two cores:
//   types (flat, every type):  every codec x both page versions (12 runs)
//   nested:                    every codec once, page versions alternating (6 runs)
//   types and nested:          5 runs each for the other options (below)
//   kernelbot:                 2 runs (its values are also compared field by field with DuckDB)
//   each polars-written file:  1 run
// Set KBDATA_INTEROP_ONLY to a regular expression to keep only the runs whose
// "source options" text matches it (for debugging one case).

const CODECS = ['snappy', 'zstd', 'gzip', 'lz4_raw', 'brotli', 'none'];
const CODEC_NAMES = {  // as kbdata inspect --json names them
  snappy: 'SNAPPY', zstd: 'ZSTD', gzip: 'GZIP', lz4_raw: 'LZ4_RAW', brotli: 'BROTLI',
  none: 'UNCOMPRESSED',
};
const EXTRAS = [
  ['--encoding', 'delta', '--page-version', '2', '--compression', 'zstd', '--level', '19'],
  ['--encoding', 'delta', '--page-version', '1', '--compression', 'brotli'],
  ['--encoding', 'plain', '--page-version', '1', '--compression', 'none', '--checksums'],
  ['--page-size', '4096', '--row-group-size', '3000', '--page-version', '2', '--checksums'],
  ['--page-size', '4KiB', '--row-group-size', '1MB', '--page-version', '1', '--compression', 'gzip',
   '--level', '9'],
];

function matrix() {
  const runs = [];
  const add = (source, args) => runs.push({ source, args });
  for (const codec of CODECS) {
    for (const version of ['1', '2']) add('types.duckdb', ['--compression', codec, '--page-version', version]);
  }
  CODECS.forEach((codec, k) => add('nested.duckdb', ['--compression', codec, '--page-version', `${k % 2 + 1}`]));
  for (const args of EXTRAS) {
    add('types.duckdb', args);
    add('nested.duckdb', args);
  }
  add('kernelbot.duckdb', ['--compression', 'zstd', '--page-version', '2', '--page-size', '16KiB']);
  add('kernelbot.duckdb', ['--compression', 'snappy', '--page-version', '1', '--row-group-size', '1500']);
  add('types.polars', ['--compression', 'zstd', '--page-version', '2']);
  add('nested.polars', ['--compression', 'lz4_raw', '--page-version', '1', '--page-size', '8KiB']);
  add('kernelbot.polars', ['--compression', 'gzip', '--page-version', '2', '--row-group-size', '1000']);
  const only = process.env.KBDATA_INTEROP_ONLY;
  return only ? runs.filter((r) => new RegExp(only).test(`${r.source} ${r.args.join(' ')}`)) : runs;
}

// ---------------------------------------------------------------------------------------------
// Helpers.

// Seconds spent per stage, printed at the end to keep the runtime budget visible.
const timings = {};
async function timed(stage, fn) {
  const t0 = performance.now();
  try {
    return await fn();
  } finally {
    timings[stage] = (timings[stage] ?? 0) + (performance.now() - t0) / 1000;
  }
}

const failures = [];
function fail(file, options, reader, what) {
  const line = `FAIL ${file}${options ? ` [${options}]` : ''} ${reader}: ${what}`;
  failures.push(line);
  console.log(line);
}

function runKbdata(args, { maxBuffer = 1 << 30 } = {}) {
  const r = spawnSync(KBDATA, args, { maxBuffer, encoding: 'buffer' });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr.toString().trim() };
}

const sqlString = (s) => `'${s.replaceAll("'", "''")}'`;

const duck = await (await DuckDBInstance.create(':memory:', { threads: '2' })).connect();
const rowsOf = async (sql) => (await duck.runAndReadAll(sql)).getRowObjectsJson();
await duck.run(`SET TimeZone = 'UTC'`);

// polars' JS binding cannot turn a Binary dtype into a JS object, so a column whose type holds
// Binary is described by the header polars prints for it (names and dtypes, struct fields elided).
pl.Config.setTblCols(-1);
pl.Config.setTblWidthChars(65000);
function polarsSchema(df) {
  return df.getColumns().map((s) => {
    try {
      return `${s.name}: ${String(s.dtype)}`;
    } catch {
      const header = df.select(s.name).head(0).toString().split('\n');
      return `${s.name}: ${header[header.findIndex((l) => l.includes('---')) + 1]}`;
    }
  });
}

// Deep equality with a path to the first difference: BigInt, Date, NaN and -0.0 (Object.is),
// Uint8Array as a byte string (hyparquet's binary values), arrays and other typed arrays as
// sequences (whether hyparquet hands out a list as Array or Int32Array is not the file's doing),
// objects with the same keys.
const isSequence = (x) => Array.isArray(x) || (ArrayBuffer.isView(x) && !(x instanceof Uint8Array));
function firstDifference(a, b, where) {
  if (Object.is(a, b)) return null;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') {
    return `${where}: ${show(a)} != ${show(b)}`;
  }
  if (a instanceof Date || b instanceof Date) {
    return a instanceof Date && b instanceof Date && Object.is(a.getTime(), b.getTime())
      ? null : `${where}: ${show(a)} != ${show(b)}`;
  }
  if (a instanceof Uint8Array || b instanceof Uint8Array) {
    return a instanceof Uint8Array && b instanceof Uint8Array && Buffer.compare(a, b) === 0
      ? null : `${where}: ${show(a)} != ${show(b)}`;
  }
  if (isSequence(a) !== isSequence(b)) return `${where}: ${show(a)} != ${show(b)}`;
  const keys = isSequence(a) ? null : Object.keys(a);
  if (isSequence(a)) {
    if (a.length !== b.length) return `${where}: length ${a.length} != ${b.length}`;
  } else if (!isDeepStrictEqual(keys, Object.keys(b))) {
    return `${where}: keys ${show(keys)} != ${show(Object.keys(b))}`;
  }
  for (const k of keys ?? a.keys()) {
    const d = firstDifference(a[k], b[k], `${where}.${k}`);
    if (d) return d;
  }
  return null;
}

function show(v) {
  if (typeof v === 'bigint') return `${v}n`;
  if (v instanceof Date) return v.toISOString();
  if (v instanceof Uint8Array) return `bytes(${v.byteLength})`;
  if (ArrayBuffer.isView(v)) return show(Array.from(v));
  if (typeof v === 'string' && v.length > 60) return JSON.stringify(`${v.slice(0, 57)}...`);
  try {
    const s = JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? `${x}n` : x));
    return s === undefined ? String(v) : s.length > 80 ? `${s.slice(0, 77)}...` : s;
  } catch {
    return String(v);
  }
}

// ---------------------------------------------------------------------------------------------
// The three readers, each comparing a file with the source it was converted from.

// The source is loaded once into a table (the same values DuckDB reads from the file). With equal
// row counts, "written EXCEPT ALL source" being empty proves the two multisets equal, so the other
// direction is not run: it would only read both again.
const duckdbSources = new Map();
async function duckdbCompare(written, source) {
  const types = async (relation) =>
    (await rowsOf(`DESCRIBE SELECT * FROM ${relation}`)).map((c) => `${c.column_name} ${c.column_type}`);
  if (!duckdbSources.has(source)) {
    const table = `source_${duckdbSources.size}`;
    await duck.run(`CREATE TABLE ${table} AS SELECT * FROM read_parquet(${sqlString(source)})`);
    duckdbSources.set(source, { table, types: await types(table) });
  }
  const { table, types: sourceTypes } = duckdbSources.get(source);
  const relation = `read_parquet(${sqlString(written)})`;
  const writtenTypes = await types(relation);
  if (!isDeepStrictEqual(writtenTypes, sourceTypes)) {
    const i = writtenTypes.findIndex((t, k) => t !== sourceTypes[k]);
    return [`column types differ: ${writtenTypes[i] ?? '(none)'} vs ${sourceTypes[i] ?? '(none)'}`];
  }
  const [row] = await rowsOf(`SELECT
      (SELECT count(*) FROM ${relation})::VARCHAR AS rows_written,
      (SELECT count(*) FROM ${table})::VARCHAR AS rows_source,
      (SELECT count(*) FROM (SELECT * FROM ${relation} EXCEPT ALL SELECT * FROM ${table}))::VARCHAR
        AS only_written`);
  if (row.rows_written !== row.rows_source) return [`row count ${row.rows_written} != ${row.rows_source}`];
  if (row.only_written !== '0') return [`${row.only_written} rows differ from the source's`];
  return [];
}

const polarsCache = new Map();
function polarsRead(file) {
  if (!polarsCache.has(file)) polarsCache.set(file, pl.readParquet(file));
  return polarsCache.get(file);
}
function polarsCompare(written, source) {
  const a = pl.readParquet(written);
  const b = polarsRead(source);
  const [sa, sb] = [polarsSchema(a), polarsSchema(b)];
  if (!isDeepStrictEqual(sa, sb)) {
    const i = sa.findIndex((t, k) => t !== sb[k]);
    return [`schema differs: ${sa[i] ?? '(none)'} vs ${sb[i] ?? '(none)'}`];
  }
  if (a.height !== b.height) return [`row count ${a.height} != ${b.height}`];
  if (!a.frameEqual(b, true)) {
    // Name the first differing column: frameEqual alone says only "different".
    const bad = a.columns.find((c) => !a.select(c).frameEqual(b.select(c), true));
    return [`values differ${bad ? ` in column ${bad}` : ''}`];
  }
  return [];
}

// hyparquet reads column by column (onChunk): assembling row objects would double its time.
const hyparquetCache = new Map();
async function hyparquetRead(file) {
  const buffer = fs.readFileSync(file);
  const ab = buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength);
  const pieces = new Map();  // top-level column -> [{rowStart, columnData}]
  await hyparquet.parquetRead({
    file: ab, compressors, utf8: false,
    onChunk: ({ columnName, columnData, rowStart }) => {
      if (!pieces.has(columnName)) pieces.set(columnName, []);
      pieces.get(columnName).push({ rowStart, columnData });
    },
  });
  const columns = new Map();
  for (const [name, list] of pieces) {
    list.sort((x, y) => x.rowStart - y.rowStart);
    const values = [];
    for (const { columnData } of list) for (let i = 0; i < columnData.length; i++) values.push(columnData[i]);
    columns.set(name, values);
  }
  return columns;
}
async function hyparquetCompare(written, source) {
  if (!hyparquetCache.has(source)) hyparquetCache.set(source, await hyparquetRead(source));
  const a = await hyparquetRead(written);
  const b = hyparquetCache.get(source);
  const [na, nb] = [[...a.keys()].sort(), [...b.keys()].sort()];
  if (!isDeepStrictEqual(na, nb)) return [`columns ${na} != ${nb}`];
  for (const name of nb) {
    const [ca, cb] = [a.get(name), b.get(name)];
    if (ca.length !== cb.length) return [`column ${name}: ${ca.length} values != ${cb.length}`];
    for (let i = 0; i < ca.length; i++) {
      const d = firstDifference(ca[i], cb[i], `row ${i}.${name}`);
      if (d) return [`first difference at ${d}`];
    }
  }
  return [];
}

// ---------------------------------------------------------------------------------------------
// What the options promise about the file's layout, checked on kbdata's own metadata (inspect
// --json: codec, row groups, page index) and on the page headers (read by hyparquet's header
// parser: page type, encoding, CRC).

function pageHeaders(buffer, chunk) {
  const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  const dict = chunk.dictionary_page_offset;
  let offset = dict !== undefined && dict > 0 && dict < chunk.data_page_offset ? dict : chunk.data_page_offset;
  const end = offset + chunk.compressed_bytes;
  const headers = [];
  while (offset < end) {
    const reader = { view, offset };
    const header = parquetHeader(reader);
    headers.push({ ...header, offset });
    offset = reader.offset + header.compressed_page_size;
  }
  return headers;
}

// One line per kind of problem, however many column chunks share it.
function layoutProblems(file, args) {
  const chunkProblems = new Map();  // problem -> chunks ("row group G column C") with it
  const chunkProblem = (where, what) => {
    if (!chunkProblems.has(what)) chunkProblems.set(what, []);
    chunkProblems.get(what).push(where);
  };
  const problems = [];
  const chunks = layoutChunkProblems(file, args, chunkProblem, problems);
  for (const [what, where] of chunkProblems) {
    problems.push(`${what} in ${where.length} of ${chunks} column chunks (first: ${where[0]})`);
  }
  return problems;
}

function layoutChunkProblems(file, args, chunkProblem, problems) {
  const opt = (name) => { const i = args.indexOf(name); return i < 0 ? null : args[i + 1]; };
  let chunks = 0;
  const r = runKbdata(['inspect', '--json', file]);
  if (r.status !== 0) {
    problems.push(`kbdata inspect --json failed: ${r.stderr}`);
    return 0;
  }
  const meta = JSON.parse(r.stdout.toString());
  const buffer = fs.readFileSync(file);
  const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  const peerMeta = hyparquet.parquetMetadata(
    buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength));
  const codec = CODEC_NAMES[opt('--compression') ?? 'snappy'];
  const version = opt('--page-version') ?? '1';
  const encoding = opt('--encoding');
  let manyPages = false;
  for (const group of meta.row_groups) {
    for (const [c, chunk] of group.columns.entries()) {
      const where = `row group ${group.index} column ${chunk.path}`;
      chunks++;
      if (opt('--compression') !== null && chunk.codec !== codec) {
        chunkProblem(where, `codec ${chunk.codec}, asked for ${codec}`);
      }
      const pi = chunk.page_index;
      if (!pi || !pi.column_index || !pi.offset_index || chunk.column_index_offset === undefined ||
          chunk.offset_index_offset === undefined) {
        chunkProblem(where, `no ColumnIndex + OffsetIndex (page_index ${show(pi ?? null)})`);
      }
      let headers;
      try {
        headers = pageHeaders(buffer, chunk);
      } catch (error) {
        chunkProblem(where, `page headers unreadable: ${error.message}`);
        continue;
      }
      const data = headers.filter((h) => h.type === 'DATA_PAGE' || h.type === 'DATA_PAGE_V2');
      // The page index as another reader parses it: one entry per data page, at its offset.
      const peerChunk = peerMeta.row_groups[group.index].columns[c];
      if (peerChunk.offset_index_offset !== undefined && peerChunk.column_index_offset !== undefined) {
        try {
          const offsets = readOffsetIndex({ view, offset: Number(peerChunk.offset_index_offset) });
          const columns = readColumnIndex({ view, offset: Number(peerChunk.column_index_offset) },
                                          { name: chunk.path, type: chunk.physical_type });
          const located = offsets.page_locations.map((l) => Number(l.offset));
          if (!isDeepStrictEqual(located, data.map((h) => h.offset)) ||
              Number(offsets.page_locations[0]?.first_row_index) !== 0) {
            chunkProblem(where, 'OffsetIndex page locations differ from the data pages');
          }
          if (columns.null_pages.length !== located.length) {
            chunkProblem(where, 'ColumnIndex and OffsetIndex count different pages');
          }
        } catch (error) {
          chunkProblem(where, `page index unreadable by hyparquet: ${error.message}`);
        }
      }
      if (data.length > 1) manyPages = true;
      const wrongType = data.find((h) => h.type !== (version === '2' ? 'DATA_PAGE_V2' : 'DATA_PAGE'));
      if (wrongType) chunkProblem(where, `${wrongType.type} pages, asked for page version ${version}`);
      if (args.includes('--checksums') && headers.some((h) => h.crc === undefined)) {
        chunkProblem(where, 'pages without a CRC');
      }
      const encodings = data.map((h) => (h.data_page_header ?? h.data_page_header_v2).encoding);
      // PLAIN, except BOOLEAN in v2 pages, which kbdata writes RLE (docs/parquet.md, "Writing").
      const plainEncoding = chunk.physical_type === 'BOOLEAN' && version === '2' ? 'RLE' : 'PLAIN';
      if (encoding === 'plain') {
        if (headers.some((h) => h.type === 'DICTIONARY_PAGE') || encodings.some((e) => e !== plainEncoding)) {
          chunkProblem(where, `--encoding plain but pages use ${[...new Set(encodings)]}` +
                              `${headers.some((h) => h.type === 'DICTIONARY_PAGE') ? ' and a dictionary' : ''}`);
        }
      }
      // kbdata's delta encodings (docs/parquet.md, "Writing"); other types keep the default.
      const deltaFor = { INT32: 'DELTA_BINARY_PACKED', INT64: 'DELTA_BINARY_PACKED',
                         BYTE_ARRAY: 'DELTA_LENGTH_BYTE_ARRAY' };
      if (encoding === 'delta' && deltaFor[chunk.physical_type] &&
          encodings.some((e) => e !== deltaFor[chunk.physical_type])) {
        chunkProblem(where, `--encoding delta but pages use ${[...new Set(encodings)]}`);
      }
    }
  }
  const rowGroupRows = opt('--row-group-size');
  if (rowGroupRows !== null && /^\d+$/.test(rowGroupRows)) {
    const limit = Number(rowGroupRows);
    const big = meta.row_groups.find((g) => g.num_rows > limit);
    if (big) problems.push(`row group ${big.index} has ${big.num_rows} rows, limit ${limit}`);
    if (meta.num_rows > limit && meta.row_groups.length < 2) problems.push('a single row group');
  }
  if (opt('--page-size') !== null && /^4(096|KiB)$/.test(opt('--page-size')) && !manyPages) {
    problems.push('--page-size 4096 but no column chunk has more than one data page');
  }
  return chunks;
}

// kbdata's own reading of a file, as JSONL text.
function kbdataCat(file, extra = []) {
  const r = runKbdata(['cat', file, '--format', 'jsonl', ...extra]);
  if (r.status !== 0) throw new Error(`kbdata cat exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}
const lineCount = (buf) => { let n = 0; for (const b of buf) if (b === 10) n++; return n; };

// The KernelBot table, field by field: kbdata's JSONL against DuckDB's values of the same file.
async function kernelbotFieldProblems(file, jsonl) {
  const expected = await rowsOf(`SELECT submission_id::VARCHAR AS submission_id,
      leaderboard_id::VARCHAR AS leaderboard_id, user_id, user_name, code,
      strftime(submission_time, '%Y-%m-%dT%H:%M:%S.%fZ') AS submission_time,
      score, passed, runner, status
    FROM read_parquet(${sqlString(file)})`);
  const lines = jsonl.toString().split('\n').filter((l) => l !== '');
  if (lines.length !== expected.length) return [`kbdata cat gives ${lines.length} rows, DuckDB ${expected.length}`];
  for (let i = 0; i < lines.length; i++) {
    const got = JSON.parse(lines[i]);
    const want = expected[i];
    if (!isDeepStrictEqual(Object.keys(got), Object.keys(want))) {
      return [`row ${i}: columns ${Object.keys(got)} != ${Object.keys(want)}`];
    }
    for (const key of Object.keys(want)) {
      let g = got[key];
      if (key === 'submission_id' || key === 'leaderboard_id') {
        g = typeof g === 'number' && Number.isSafeInteger(g) ? String(g) : `not an exact integer: ${g}`;
      }
      if (!Object.is(g, want[key])) return [`row ${i} ${key}: kbdata ${show(got[key])}, DuckDB ${show(want[key])}`];
    }
  }
  return [];
}

// ---------------------------------------------------------------------------------------------
// 1. The sources: DuckDB writes each table; polars reads DuckDB's file and writes its own.

const SRC = path.join(OUT, 'sources');
fs.mkdirSync(SRC);
const sourcePath = (name) => path.join(SRC, `${name}.parquet`);
for (const table of TABLES) {
  const duckFile = sourcePath(`${table.name}.duckdb`);
  await timed('sources', async () => {
    await duck.run(`COPY (${table.sql}) TO ${sqlString(duckFile)} (FORMAT parquet, ROW_GROUP_SIZE 8192)`);
    pl.readParquet(duckFile).writeParquet(sourcePath(`${table.name}.polars`), { compression: 'zstd' });
  });
}

// 2. kbdata reads what the peers wrote: the same number of rows as each peer, and for the
//    KernelBot table the same values as DuckDB, field by field.
const sourceCat = new Map();
for (const table of TABLES) {
  for (const writer of ['duckdb', 'polars']) {
    const name = `${table.name}.${writer}`;
    const file = sourcePath(name);
    let jsonl;
    try {
      jsonl = await timed('kbdata cat', () => kbdataCat(file));
    } catch (error) {
      fail(`sources/${name}.parquet`, '', 'kbdata', error.message);
      continue;
    }
    sourceCat.set(name, jsonl);
    const counts = await timed('peer row counts', async () => ({
      kbdata: lineCount(jsonl),
      duckdb: Number((await rowsOf(`SELECT count(*)::VARCHAR AS n FROM read_parquet(${sqlString(file)})`))[0].n),
      polars: polarsRead(file).height,
    }));
    if (counts.kbdata !== counts.duckdb || counts.kbdata !== counts.polars) {
      fail(`sources/${name}.parquet`, '', 'kbdata', `row counts differ: ${show(counts)}`);
    }
    if (table.name === 'kernelbot') {
      const problems = await timed('kernelbot fields', () => kernelbotFieldProblems(file, jsonl));
      for (const p of problems) fail(`sources/${name}.parquet`, '', 'kbdata vs duckdb', p);
    }
  }
}

// 3. kbdata writes the matrix; every file is read back by the three peers and by kbdata.
const WRITTEN = path.join(OUT, 'kbdata');
fs.mkdirSync(WRITTEN);
const runs = matrix();
if (runs.length === 0) fail('', '', 'interop', `KBDATA_INTEROP_ONLY=${process.env.KBDATA_INTEROP_ONLY} matches no run`);
let written = 0;
for (const [k, run] of runs.entries()) {
  const src = sourcePath(run.source);
  const out = path.join(WRITTEN, `${String(k).padStart(2, '0')}-${run.source}.parquet`);
  const label = path.relative(OUT, out);
  const options = run.args.join(' ');
  const r = await timed('convert', () => runKbdata(['convert', src, out, ...run.args]));
  if (r.status !== 0 || !fs.existsSync(out)) {
    fail(label, options, 'kbdata convert', `exit ${r.status}: ${r.stderr.split('\n')[0]}`);
    continue;
  }
  written++;
  try {
    for (const p of await timed('layout', () => layoutProblems(out, run.args))) fail(label, options, 'layout', p);
  } catch (error) {
    fail(label, options, 'layout', `cannot check: ${error.message.split('\n')[0]}`);
  }
  const readers = [
    ['duckdb', () => duckdbCompare(out, src)],
    ['polars', () => polarsCompare(out, src)],
    ['hyparquet', () => hyparquetCompare(out, src)],
  ];
  for (const [reader, compare] of readers) {
    try {
      for (const p of await timed(reader, compare)) fail(label, options, reader, p);
    } catch (error) {
      fail(label, options, reader, `cannot read: ${error.message.split('\n')[0]}`);
    }
  }
  try {
    const verify = run.args.includes('--checksums') ? ['--verify-checksums'] : [];
    const jsonl = await timed('kbdata cat', () => kbdataCat(out, verify));
    const original = sourceCat.get(run.source);
    if (original && !jsonl.equals(original)) {
      const [a, b] = [jsonl.toString().split('\n'), original.toString().split('\n')];
      let i = 0;
      while (a[i] === b[i]) i++;  // they differ, so some line does (or one output is longer)
      let c = 0;
      while (c < (a[i] ?? '').length && a[i][c] === b[i]?.[c]) c++;
      const at = (line) => (line === undefined ? '(no line)' : show(line.slice(Math.max(0, c - 20), c + 40)));
      fail(label, options, 'kbdata', `cat differs from the source's at row ${i}, ` +
                                     `character ${c}: ${at(a[i])} vs ${at(b[i])}`);
    }
    if (run.source.startsWith('kernelbot.')) {
      const problems = await timed('kernelbot fields', () => kernelbotFieldProblems(out, jsonl));
      for (const p of problems) fail(label, options, 'kbdata vs duckdb', p);
    }
  } catch (error) {
    fail(label, options, 'kbdata', error.message);
  }
}

const seconds = ((Date.now() - started) / 1000).toFixed(1);
console.log(`interop: seconds per stage: ${Object.entries(timings).map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', ')}`);
if (failures.length === 0) {
  console.log(`interop: ${written} files written by kbdata x 3 readers: all identical ` +
              `(${runs.length} runs, kbdata read ${sourceCat.size} peer-written files; ${seconds} s)`);
  fs.rmSync(OUT, { recursive: true, force: true });
  process.exit(0);
}
console.log(`interop: ${failures.length} failures over ${written} of ${runs.length} files written ` +
            `by kbdata (${seconds} s); files kept in ${OUT}`);
process.exit(1);
