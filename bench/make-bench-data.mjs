#!/usr/bin/env node
// Writes the synthetic Parquet files the benchmarks read. They are large, so they live under
// build/bench-data/ and are never committed.
//
//   node bench/make-bench-data.mjs            build/bench-data/bench_flat.parquet
//                                             (~490 MB uncompressed, ~150 MB on disk)
//   node bench/make-bench-data.mjs --large    build/bench-data/bench_flat_large.parquet
//                                             (one row group, ~1.1 GB on disk, ~3.6 GB uncompressed;
//                                             ~2 min of CPU and 11 GB of RAM to write)
//   options: --force  rewrite even if the file exists;  --out PATH  write PATH instead
//
// Both are a flat KernelBot-like table (docs/dataset.md §4.1: int64 ids, strings, a UTC timestamp in
// microseconds, float64 scores with nulls, booleans, and a `code` column of ~7 KB of synthetic
// CUDA/Triton-like source per row), snappy-compressed, written by DuckDB in a single row group as
// the published files are. Each row's code is a header line plus 11 blocks of 16 lines drawn from
// a pool of 8192 generated blocks; a block mixes recurring lines (compressible, like real code)
// with lines holding random numbers, so snappy compresses the text about 3x (the real files:
// "several times"). Rows come from a seeded PRNG (mulberry32), so every run writes the same rows.
// The rows are generated here and handed to DuckDB through its appender (faster than generating
// the text in SQL), then written with COPY.
//
// DuckDB starts a new data page only when one reaches 100 MB uncompressed, so the `code` chunk
// consists of pages of ~100 MB; a page-at-a-time reader needs about one such page decompressed
// plus one compressed in memory, whatever the row group's size.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PEERS = path.join(REPO, 'tools', 'peers');

const args = process.argv.slice(2);
const large = args.includes('--large');
const force = args.includes('--force');
const outIndex = args.indexOf('--out');
const out = outIndex >= 0 ? path.resolve(args[outIndex + 1] ?? '')
  : path.join(REPO, 'build', 'bench-data', large ? 'bench_flat_large.parquet' : 'bench_flat.parquet');
const unknown = args.filter((a, i) => !['--large', '--force', '--out'].includes(a) &&
                                        !(outIndex >= 0 && i === outIndex + 1));
if (unknown.length || (outIndex >= 0 && !args[outIndex + 1])) {
  console.error('usage: node bench/make-bench-data.mjs [--large] [--force] [--out PATH]');
  process.exit(2);
}

const ROWS = large ? 520_000 : 70_000;
const BLOCKS_PER_ROW = 11;
const LINES_PER_BLOCK = 16;
const POOL_BLOCKS = 8192;  // a power of two

if (fs.existsSync(out) && !force) {
  console.log(`make-bench-data: ${path.relative(REPO, out)} exists (use --force to rewrite)`);
  process.exit(0);
}

const requirePeer = createRequire(path.join(PEERS, 'package.json'));
let duckdb;
try {
  duckdb = requirePeer('@duckdb/node-api');
} catch (error) {
  console.error(`make-bench-data: cannot load @duckdb/node-api from ${PEERS}/node_modules ` +
                `(${error.message}).\nInstall the peers first: (cd tools/peers && npm ci)`);
  process.exit(2);
}
const { DuckDBInstance, DuckDBTimestampTZValue } = duckdb;

// mulberry32: a 32-bit seeded PRNG; returns unsigned 32-bit integers.
function makeRng(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}
const rng = makeRng(0x6b626e63);  // "kbnc"

// Lines that recur in every kernel; about 60% of the lines.
const COMMON_LINES = [
  '    for (int i = threadIdx.x; i < n; i += blockDim.x) {', '      acc += a[i] * b[i];',
  '  __syncthreads();', '    }', '  return;', '    x = tl.load(ptr + offs, mask=mask, other=0.0)',
  '    acc = tl.dot(a, b, acc)', '@triton.jit', 'import torch', '  // TODO: tune the tile sizes',
  '    tl.store(out + offs, acc.to(tl.float16), mask=mask)', '  const int lane = threadIdx.x & 31;',
  '  float4 v = reinterpret_cast<const float4*>(src)[idx];', '#pragma unroll', '  }', '',
];
const blocks = [];
for (let k = 0; k < POOL_BLOCKS; k++) {
  const lines = [];
  for (let j = 0; j < LINES_PER_BLOCK; j++) {
    const r = rng();
    lines.push(r % 10 < 4
      ? `  float v${j} = w[${rng() & 4095}] * 0x${(rng() & 65535).toString(16)} + ` +
        `0x${rng().toString(16)};  // synthetic`
      : COMMON_LINES[r % COMMON_LINES.length]);
  }
  blocks.push(lines.join('\n'));
}

const PROBLEMS = [[595n, 'nvfp4_gemv'], [597n, 'nvfp4_gemm'], [697n, 'modal_nvfp4_dual_gemm']];
const START_MICROS = BigInt(Date.UTC(2025, 9, 1)) * 1000n;  // 2025-10-01 00:00 UTC

fs.mkdirSync(path.dirname(out), { recursive: true });
const temp = `${out}.tmp-${process.pid}`;
const started = Date.now();
const instance = await DuckDBInstance.create(':memory:');
const db = await instance.connect();
const rowsOf = async (sql) => (await db.runAndReadAll(sql)).getRowObjectsJson();
const sqlPath = (p) => `'${p.replaceAll("'", "''")}'`;
try {
  await db.run(`SET TimeZone = 'UTC'`);
  // One thread keeps the rows in insertion order without DuckDB's order-preserving copy, which
  // costs twice the CPU and memory on a multi-GB row group (the order is checked below).
  await db.run(`SET threads = 1`);
  await db.run(`SET preserve_insertion_order = false`);
  // Column names and types of the flat KernelBot schema (docs/dataset.md §4.1).
  await db.run(`CREATE TABLE bench (
    submission_id BIGINT, leaderboard_id BIGINT, problem_name VARCHAR, user_id VARCHAR,
    user_name VARCHAR, code_id BIGINT, file_name VARCHAR, submission_time TIMESTAMPTZ,
    status VARCHAR, score DOUBLE, passed BOOLEAN, mode VARCHAR, runner VARCHAR, code VARCHAR)`);
  console.log(`make-bench-data: generating ${ROWS} rows for ${path.relative(REPO, out)} ...`);
  const appender = await db.createAppender('bench');
  for (let i = 0; i < ROWS; i++) {
    const [leaderboardId, problem] = PROBLEMS[i % 3];
    const user = rng() % 5000;
    const failed = rng() % 100 < 11;
    appender.appendBigInt(BigInt(1_000_000 + i));
    appender.appendBigInt(leaderboardId);
    appender.appendVarchar(problem);
    appender.appendVarchar(String(100000000000000000n + BigInt(user) * 7919n));
    appender.appendVarchar(user % 50 === 0 ? '' : `user_${user}`);
    appender.appendBigInt(BigInt(3 * i + 1));
    appender.appendVarchar(i % 2 === 0 ? 'submission.py' : 'submission.cu');
    appender.appendTimestampTZ(new DuckDBTimestampTZValue(
      START_MICROS + BigInt(rng()) * 1000n + BigInt(rng() % 1000)));
    appender.appendVarchar(failed ? 'failed' : 'succeeded');
    if (failed) {
      appender.appendNull();
      appender.appendNull();
      appender.appendNull();
      appender.appendNull();
    } else {
      appender.appendDouble(1e-6 + (rng() % 1_000_000) / 1e9);
      appender.appendBoolean(true);
      appender.appendVarchar('leaderboard');
      appender.appendVarchar('B200');
    }
    let code = `// synthetic benchmark kernel ${i} for ${problem}`;
    for (let b = 0; b < BLOCKS_PER_ROW; b++) code += '\n' + blocks[rng() & (POOL_BLOCKS - 1)];
    appender.appendVarchar(code);
    appender.endRow();
  }
  appender.closeSync();
  console.log(`make-bench-data: writing (${((Date.now() - started) / 1000).toFixed(0)} s so far) ...`);
  await db.run(`COPY bench TO ${sqlPath(temp)}
                (FORMAT PARQUET, COMPRESSION SNAPPY, ROW_GROUP_SIZE 100000000)`);
  fs.renameSync(temp, out);
} finally {
  if (fs.existsSync(temp)) fs.rmSync(temp);
}

const [{ misplaced }] = await rowsOf(`
  SELECT count(*)::INTEGER AS misplaced
  FROM read_parquet(${sqlPath(out)}, file_row_number = true)
  WHERE submission_id <> 1000000 + file_row_number`);
if (misplaced !== 0) {
  console.error(`make-bench-data: ${misplaced} rows of ${out} are out of order`);
  process.exit(1);
}
const [stats] = await rowsOf(`
  SELECT count(DISTINCT row_group_id)::INTEGER AS row_groups,
         sum(total_uncompressed_size)::BIGINT AS uncompressed
  FROM parquet_metadata(${sqlPath(out)})`);
const mb = (bytes) => (Number(bytes) / 1e6).toFixed(1);
console.log(`make-bench-data: ${path.relative(REPO, out)}: ${ROWS} rows, ${stats.row_groups} ` +
            `row group(s), ${mb(fs.statSync(out).size)} MB on disk, ${mb(stats.uncompressed)} MB ` +
            `uncompressed, in ${((Date.now() - started) / 1000).toFixed(0)} s`);
