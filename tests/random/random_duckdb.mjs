#!/usr/bin/env node
// The reader's randomized peer test: random tables written by DuckDB (PARQUET_VERSION V1 and V2,
// random codecs and row group sizes) must read in `kbdata cat --format jsonl` exactly as DuckDB
// reads the same file, value by value; and KernelBot flat files whose columns DuckDB cast to random
// accepted types must give, in `kbdata submissions --format jsonl`, DuckDB's reading of them. See
// README.md beside this file.
//
//   node tests/random/random_duckdb.mjs KBDATA_BINARY OUTPUT_DIR --seeds FIRST-LAST
//   node tests/random/random_duckdb.mjs KBDATA_BINARY OUTPUT_DIR --soak SECONDS
//
// --seeds runs the given seeds (make check: fixed ones). --soak starts at a fresh seed and runs
// seeds until SECONDS are spent (the seed being run when time is up is finished). The environment
// variable KBDATA_SOAK_SEED runs that one seed instead, keeping its files. A seed is one random
// table, written twice (V1 and V2) with independent random options, and one KernelBot file.
//
// OUTPUT_DIR is emptied first; a file that fails is kept there, the others are removed. Prints one
// line per failing file (seed, file, column, row, both values) and a summary; exits 1 on any
// failure, including missing peers (run scripts/install-deps).
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const PEERS = path.join(REPO, 'tools', 'peers');
const started = Date.now();

function usage() {
  console.error('usage: node tests/random/random_duckdb.mjs KBDATA_BINARY OUTPUT_DIR ' +
                '(--seeds FIRST-LAST | --soak SECONDS)');
  process.exit(2);
}
function die(message) {
  console.error(`random: ${message}`);
  process.exit(1);
}

if (process.argv.length !== 6) usage();
const KBDATA = path.resolve(process.argv[2]);
const OUT = path.resolve(process.argv[3]);
const mode = process.argv[4];
let seeds;          // fixed list, or null in soak mode
let soakSeconds = 0;
let keepFiles = false;  // KBDATA_SOAK_SEED: the one seed's files stay for a look
if (mode === '--seeds') {
  const m = /^(\d+)-(\d+)$/.exec(process.argv[5]);
  if (!m || Number(m[1]) > Number(m[2])) usage();
  seeds = [];
  for (let s = Number(m[1]); s <= Number(m[2]); s++) seeds.push(s);
} else if (mode === '--soak') {
  soakSeconds = Number(process.argv[5]);
  if (!(soakSeconds > 0)) usage();
  if (process.env.KBDATA_SOAK_SEED) {
    const s = process.env.KBDATA_SOAK_SEED;
    if (!/^\d+$/.test(s) || Number(s) > 0xffffffff) die(`KBDATA_SOAK_SEED=${s} is not a 32-bit unsigned seed`);
    seeds = [Number(s)];
    keepFiles = true;
  } else {
    seeds = null;
  }
} else {
  usage();
}

const requirePeer = createRequire(path.join(PEERS, 'package.json'));
let DuckDBInstance;
try {
  ({ DuckDBInstance } = requirePeer('@duckdb/node-api'));
} catch (error) {
  die(`cannot load @duckdb/node-api from ${PEERS}/node_modules (${error.message.split('\n')[0]}); ` +
      'run scripts/install-deps');
}
if (!fs.existsSync(KBDATA)) die(`no kbdata binary at ${KBDATA}; build it first`);

fs.rmSync(OUT, { recursive: true, force: true });
fs.mkdirSync(OUT, { recursive: true });

const duck = await (await DuckDBInstance.create(':memory:', { threads: '2' })).connect();
await duck.run(`SET TimeZone = 'UTC'`);
const sqlString = (s) => `'${s.replaceAll("'", "''")}'`;

// ---------------------------------------------------------------------------------------------
// Seeded randomness (mulberry32): a seed gives the same table and options on every machine.

function makeRng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const rng = {
    float: next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),  // inclusive, |range| < 2^32
    chance: (p) => next() < p,
    pick: (list) => list[Math.floor(next() * list.length)],
    bits64: () => (BigInt(Math.floor(next() * 4294967296)) << 32n) | BigInt(Math.floor(next() * 4294967296)),
    // Uniform in [lo, hi] for BigInt bounds (up to 64-bit ranges).
    big: (lo, hi) => lo + (rng.bits64() % (hi - lo + 1n)),
  };
  return rng;
}

// ---------------------------------------------------------------------------------------------
// Types. Each is { kind, sql, ... }; leaves carry what the comparison needs.

const INT_TYPES = [
  ['TINYINT', true, 8], ['SMALLINT', true, 16], ['INTEGER', true, 32], ['BIGINT', true, 64],
  ['UTINYINT', false, 8], ['USMALLINT', false, 16], ['UINTEGER', false, 32], ['UBIGINT', false, 64],
].map(([sql, signed, bits]) => ({
  kind: 'int', sql, signed, bits,
  min: signed ? -(1n << BigInt(bits - 1)) : 0n,
  max: signed ? (1n << BigInt(bits - 1)) - 1n : (1n << BigInt(bits)) - 1n,
}));

const TIMESTAMP_TYPES = [
  { kind: 'timestamp', sql: 'TIMESTAMP', unit: 'us', utc: false },
  { kind: 'timestamp', sql: 'TIMESTAMPTZ', unit: 'us', utc: true },
  { kind: 'timestamp', sql: 'TIMESTAMP_NS', unit: 'ns', utc: false },
  { kind: 'timestamp', sql: 'TIMESTAMP_MS', unit: 'ms', utc: false },
  { kind: 'timestamp', sql: 'TIMESTAMP_S', unit: 's', utc: false },
];

// Integers are the point (~45% of leaves), the 32-bit ones (INT32 with the widest deltas) twice as
// often as the others.
const INT_CHOICES = [...INT_TYPES, INT_TYPES[2], INT_TYPES[6]];

function leafType(rng) {
  const r = rng.int(-2, 19);
  if (r < 8) return INT_CHOICES[r + 2];
  switch (r) {
    case 8: return { kind: 'double', sql: 'DOUBLE' };
    case 9: return { kind: 'float', sql: 'FLOAT' };
    case 10: case 11: return { kind: 'varchar', sql: 'VARCHAR' };
    case 12: return { kind: 'bool', sql: 'BOOLEAN' };
    case 13: return { kind: 'date', sql: 'DATE' };
    case 14: return rng.pick(TIMESTAMP_TYPES);
    case 15: case 16: {
      const p = rng.pick([1, 4, 9, 10, 18, 19, 38, rng.int(1, 38)]);
      const s = rng.pick([0, p, rng.int(0, p)]);
      return { kind: 'decimal', sql: `DECIMAL(${p},${s})`, precision: p, scale: s };
    }
    case 17: return rng.chance(0.5) ? { kind: 'blob', sql: 'BLOB' } : { kind: 'enum', sql: "ENUM('sad', 'ok', 'happy', 'ünï')" };
    case 18: return { kind: 'uuid', sql: 'UUID' };
    default: return { kind: 'time', sql: 'TIME' };
  }
}

let fieldCounter = 0;
function nestedType(rng, depth) {
  if (depth >= 3 || rng.chance(0.45)) return leafType(rng);
  const r = rng.int(0, 4);
  if (r === 3) {  // a fixed-size ARRAY: a LIST in Parquet; a null one is written as n entries
    const elem = nestedType(rng, depth + 1);
    const size = rng.int(1, 4);
    return { kind: 'array', elem, size, sql: `${elem.sql}[${size}]` };
  }
  if (r === 0) {  // struct
    const fields = [];
    const n = rng.int(1, 4);
    for (let i = 0; i < n; i++) fields.push([`f${fieldCounter++}`, nestedType(rng, depth + 1)]);
    return { kind: 'struct', fields, sql: `STRUCT(${fields.map(([f, t]) => `${f} ${t.sql}`).join(', ')})` };
  }
  if (r === 1 || r === 2) {  // list, half of them lists of structs
    let elem;
    if (r === 2) {
      const fields = [];
      const n = rng.int(1, 3);
      for (let i = 0; i < n; i++) fields.push([`f${fieldCounter++}`, nestedType(rng, depth + 2)]);
      elem = { kind: 'struct', fields, sql: `STRUCT(${fields.map(([f, t]) => `${f} ${t.sql}`).join(', ')})` };
    } else {
      elem = nestedType(rng, depth + 1);
    }
    return { kind: 'list', elem, sql: `${elem.sql}[]` };
  }
  const key = rng.pick([{ kind: 'varchar', sql: 'VARCHAR' }, INT_TYPES[2], INT_TYPES[3], INT_TYPES[0]]);
  const value = nestedType(rng, depth + 1);
  return { kind: 'map', key, value, sql: `MAP(${key.sql}, ${value.sql})` };
}

// ---------------------------------------------------------------------------------------------
// Values as SQL literals, each cast to its type. A generator per leaf column has a "mode" so that
// a column is sometimes dictionary-friendly, sometimes delta-friendly, sometimes all extremes.

const STRINGS = ['', ' ', 'a', 'x,y', 'quote "q"', "it's", 'back\\slash', 'line\nbreak', 'tab\tcr\r',
  'ctrl\u0001\u001f', 'héllo', '中文字符', 'emoji 🚀🔥', 'ünïcödé ✓', 'null', 'NULL', '{"json":1}', '0'];

function randomString(rng) {
  const r = rng.float();
  if (r < 0.4) return rng.pick(STRINGS);
  if (r < 0.97) {
    const n = rng.int(1, 30);
    let s = '';
    for (let i = 0; i < n; i++) s += String.fromCodePoint(rng.chance(0.9) ? rng.int(32, 126) : rng.pick([0xe9, 0x4e2d, 0x1f600, 0x3b1, 10]));
    return s;
  }
  return 'long:'.padEnd(rng.int(1000, 20000), String.fromCharCode(rng.int(97, 122)));
}

const DOUBLE_SPECIALS = ['nan', 'inf', '-inf', '-0.0', '0', '1.7976931348623157e308', '-1.7976931348623157e308',
  '5e-324', '-5e-324', '2.2250738585072014e-308', '0.1', '1e16', '9007199254740993', '-1'];
const FLOAT_SPECIALS = ['nan', 'inf', '-inf', '-0.0', '0', '3.4028235e38', '-3.4028235e38', '1.4e-45',
  '1.17549435e-38', '0.1', '16777217', '-1'];

function pad(n, width) {
  const s = String(Math.abs(n));
  return (n < 0 ? '-' : '') + s.padStart(width, '0');
}

function makeLeafGenerator(type, rng) {
  const mode = rng.pick(['extreme', 'full', 'small', 'ramp', 'runs']);
  switch (type.kind) {
    case 'int': {
      const { min, max } = type;
      const clip = (v) => (v < min ? min : v > max ? max : v);
      const extremes = [min, max, min + 1n, max - 1n, clip(0n), clip(-1n), clip(1n)];
      let cur = rng.big(min, max);
      const step = BigInt(rng.int(-1000, 1000));
      let run = 0;
      return () => {
        let v;
        if (mode === 'extreme') v = rng.chance(0.6) ? rng.pick(extremes) : rng.big(min, max);
        else if (mode === 'full') v = rng.big(min, max);
        else if (mode === 'small') v = clip(BigInt(rng.int(-50, 50)));
        else if (mode === 'ramp') {
          cur += step + BigInt(rng.int(-3, 3));
          if (cur < min || cur > max) cur = rng.big(min, max);
          v = cur;
        } else {
          if (run-- <= 0) { cur = rng.chance(0.3) ? rng.pick(extremes) : rng.big(min, max); run = rng.int(0, 40); }
          v = cur;
        }
        return `CAST(${v} AS ${type.sql})`;
      };
    }
    case 'double':
    case 'float': {
      const specials = type.kind === 'double' ? DOUBLE_SPECIALS : FLOAT_SPECIALS;
      return () => {
        let text;
        if (mode === 'extreme' || rng.chance(0.1)) text = rng.pick(specials);
        else if (mode === 'small') text = String(rng.int(-20, 20) / 4);
        else text = String((rng.float() - 0.5) * 10 ** rng.int(-30, 30));
        return `CAST('${text}' AS ${type.sql})`;
      };
    }
    case 'varchar': {
      const pool = Array.from({ length: rng.int(1, 12) }, () => randomString(rng));
      return () => sqlString(mode === 'small' || mode === 'runs' ? rng.pick(pool) : randomString(rng));
    }
    case 'enum':
      return () => sqlString(rng.pick(mode === 'runs' ? ['ok'] : ['sad', 'ok', 'happy', 'ünï']));
    case 'blob':
      return () => {
        const bytes = crypto.createHash('sha256').update(String(rng.float())).digest().subarray(0, rng.int(0, 20));
        return `from_hex('${bytes.toString('hex')}')`;
      };
    case 'uuid':
      return () => {
        const hex = crypto.createHash('md5').update(String(rng.float())).digest('hex');
        return `CAST('${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}' AS UUID)`;
      };
    case 'bool':
      return () => (rng.chance(mode === 'runs' ? 0.95 : 0.5) ? 'true' : 'false');
    case 'date':
      return () => {
        // Days from 1970-01-01: mostly recent, some before 1970, some years beyond 0..9999.
        const days = mode === 'extreme' ? rng.pick([-719528, -719529, 2932896, 2932897, -1, 0, rng.int(-3000000, 3000000)])
                                        : rng.int(-40000, 40000);
        return `CAST(DATE '1970-01-01' + ${days} AS DATE)`;
      };
    case 'timestamp':
      return () => {
        if (type.unit === 'ns') {  // nanoseconds from the epoch fill INT64: years 1677..2262
          const nanos = mode === 'extreme'
            ? rng.pick([-9223372036854775000n, 9223372036854775000n, -1n, 0n, 1n, rng.big(-9223372036854775000n, 9223372036854775000n)])
            : rng.big(-2208988800000000000n, 4102444800000000000n);
          return `make_timestamp_ns(${nanos}::BIGINT)`;
        }
        // Microseconds from the epoch: mostly 1900..2100, some in years 0001..9999, some beyond.
        const micros = mode === 'extreme'
          ? rng.pick([-62135596800000000n, 253402300799999999n, 253402300800000000n, -62135596800000001n,
                      -1n, 0n, 1n, rng.big(-62135596800000000n, 253402300799999999n),
                      rng.big(-9000000000000000000n, 9000000000000000000n)])
          : rng.big(-2208988800000000n, 4102444800000000n);
        return `CAST(make_timestamp(${micros}::BIGINT) AS ${type.sql})`;
      };
    case 'time':
      return () => {
        const us = rng.chance(0.1) ? rng.pick([0, 86399999999]) : rng.int(0, 86399999) * 1000 + rng.int(0, 999);
        const s = Math.floor(us / 1e6);
        return `CAST('${pad(Math.floor(s / 3600), 2)}:${pad(Math.floor(s / 60) % 60, 2)}:${pad(s % 60, 2)}.${pad(us % 1e6, 6)}' AS TIME)`;
      };
    case 'decimal': {
      const { precision, scale } = type;
      const maxUnscaled = 10n ** BigInt(precision) - 1n;
      return () => {
        let v;
        if (mode === 'extreme' && rng.chance(0.6)) v = rng.pick([maxUnscaled, -maxUnscaled, 0n, 1n, -1n]);
        else if (mode === 'small') v = BigInt(rng.int(-999, 999));
        else v = rng.big(-maxUnscaled, maxUnscaled);
        if (v > maxUnscaled) v = maxUnscaled;
        if (v < -maxUnscaled) v = -maxUnscaled;
        return `CAST('${formatDecimal(v, scale)}' AS ${type.sql})`;
      };
    }
    default:
      throw new Error(`no generator for ${type.kind}`);
  }
}

// A generator of SQL literals for a (possibly nested) type; NULL at every level.
function makeGenerator(type, rng) {
  const nullRate = rng.pick([0, 0, 0.05, 0.3, 0.9, 1]);
  const orNull = (gen) => () => (rng.chance(nullRate) ? 'NULL' : gen());
  switch (type.kind) {
    case 'struct': {
      const gens = type.fields.map(([name, t]) => [name, makeGenerator(t, rng)]);
      return orNull(() => `{${gens.map(([name, g]) => `'${name}': ${g()}`).join(', ')}}`);
    }
    case 'list': {
      const elem = makeGenerator(type.elem, rng);
      const maxLen = rng.pick([0, 1, 3, 10, 40]);
      return orNull(() => {
        const n = rng.int(0, maxLen);
        return `CAST([${Array.from({ length: n }, elem).join(', ')}] AS ${type.sql})`;
      });
    }
    case 'array': {
      const elem = makeGenerator(type.elem, rng);
      return orNull(() => `CAST([${Array.from({ length: type.size }, elem).join(', ')}] AS ${type.sql})`);
    }
    case 'map': {
      const key = makeLeafGenerator(type.key, rng);
      const value = makeGenerator(type.value, rng);
      const maxLen = rng.pick([0, 1, 4, 10]);
      return orNull(() => {
        const n = rng.int(0, maxLen);
        const keys = new Set();
        for (let i = 0; i < n; i++) keys.add(key());
        return `CAST(MAP {${[...keys].map((k) => `${k}: ${value()}`).join(', ')}} AS ${type.sql})`;
      });
    }
    default:
      return orNull(makeLeafGenerator(type, rng));
  }
}

// ---------------------------------------------------------------------------------------------
// Expected text: how docs/cli.md says kbdata prints a value ("Values"), computed here from
// DuckDB's reading, independently of kbdata's formatter.

function formatDecimal(unscaled, scale) {
  const negative = unscaled < 0n;
  let digits = (negative ? -unscaled : unscaled).toString();
  if (scale > 0) {
    digits = digits.padStart(scale + 1, '0');
    digits = `${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`;
  }
  return (negative ? '-' : '') + digits;
}

// Proleptic Gregorian civil date of a day count from 1970-01-01 (H. Hinnant's algorithm).
function civil(days) {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return [y, m, d];
}

function formatDate(days) {
  const [y, m, d] = civil(days);
  const year = y < 0 ? `-${String(-y).padStart(4, '0')}` : y > 9999 ? `+${y}` : String(y).padStart(4, '0');
  return `${year}-${pad(m, 2)}-${pad(d, 2)}`;
}

// nanos: BigInt nanoseconds from the epoch; digits: 3, 6 or 9.
function formatTimestamp(nanos, digits, utc) {
  const perDay = 86400n * 1000000000n;
  let days = nanos / perDay;
  let rest = nanos % perDay;
  if (rest < 0n) { rest += perDay; days -= 1n; }
  const secs = Number(rest / 1000000000n);
  const frac = (rest % 1000000000n).toString().padStart(9, '0').slice(0, digits);
  return `${formatDate(Number(days))}T${pad(Math.floor(secs / 3600), 2)}:${pad(Math.floor(secs / 60) % 60, 2)}:${pad(secs % 60, 2)}` +
         `${digits ? `.${frac}` : ''}${utc ? 'Z' : ''}`;
}

// ---------------------------------------------------------------------------------------------
// kbdata's JSON, parsed keeping each number's text (an INT64 is beyond a double's precision) and
// each object's key order (as an array of [key, value] pairs).

class JNum { constructor(text) { this.text = text; } }
class JObj { constructor(entries) { this.entries = entries; } }

function parseJson(text) {
  let i = 0;
  const ws = () => { while (i < text.length && ' \t\r\n'.includes(text[i])) i++; };
  const value = () => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const entries = [];
      ws();
      if (text[i] === '}') { i++; return new JObj(entries); }
      for (;;) {
        ws();
        const key = string();
        ws();
        if (text[i++] !== ':') throw new Error(`expected ':' at ${i - 1}`);
        entries.push([key, value()]);
        ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i++] !== '}') throw new Error(`expected '}' at ${i - 1}`);
        return new JObj(entries);
      }
    }
    if (c === '[') {
      i++;
      const items = [];
      ws();
      if (text[i] === ']') { i++; return items; }
      for (;;) {
        items.push(value());
        ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i++] !== ']') throw new Error(`expected ']' at ${i - 1}`);
        return items;
      }
    }
    if (c === '"') return string();
    for (const [word, v] of [['true', true], ['false', false], ['null', null]]) {
      if (text.startsWith(word, i)) { i += word.length; return v; }
    }
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m) throw new Error(`unexpected ${JSON.stringify(text.slice(i, i + 10))} at ${i}`);
    i += m[0].length;
    return new JNum(m[0]);
  };
  const string = () => {
    if (text[i] !== '"') throw new Error(`expected a string at ${i}`);
    let j = i + 1;
    while (text[j] !== '"') {
      if (j >= text.length) throw new Error('unterminated string');
      j += text[j] === '\\' ? 2 : 1;
    }
    const s = JSON.parse(text.slice(i, j + 1));
    i = j + 1;
    return s;
  };
  const v = value();
  ws();
  if (i !== text.length) throw new Error(`trailing text at ${i}`);
  return v;
}

const showKb = (v) => {
  if (v instanceof JNum) return v.text;
  if (v instanceof JObj) return `{${v.entries.map(([k, x]) => `${JSON.stringify(k)}:${showKb(x)}`).join(',')}}`;
  if (Array.isArray(v)) return `[${v.map(showKb).join(',')}]`;
  return JSON.stringify(v);
};
const showDuck = (v) => {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'bigint') return `${v}`;
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : String(v);
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'boolean') return String(v);
  return String(v);
};
const cut = (s) => (s.length > 120 ? `${s.slice(0, 117)}...` : s);

// Parses a kbdata number or its NaN/Infinity strings as a double.
function kbDouble(v) {
  if (v instanceof JNum) return Number(v.text);
  if (v === 'NaN') return NaN;
  if (v === 'Infinity') return Infinity;
  if (v === '-Infinity') return -Infinity;
  return undefined;
}

// The first difference between kbdata's value `kb` and DuckDB's `dv` of `type`, or null.
function difference(type, kb, dv, where) {
  const differ = (what) => `${where}: kbdata ${cut(showKb(kb))}, DuckDB ${cut(what ?? showDuck(dv))}`;
  if (dv === null || dv === undefined) return kb === null ? null : differ();
  if (kb === null) return differ();
  switch (type.kind) {
    case 'int':
      return kb instanceof JNum && /^-?\d+$/.test(kb.text) && BigInt(kb.text) === BigInt(dv) ? null : differ();
    case 'double': {
      const x = kbDouble(kb);
      return x !== undefined && Object.is(x, dv) ? null : differ();
    }
    case 'float': {
      const x = kbDouble(kb);
      // kbdata prints the float's shortest text, which rounds to the same float; DuckDB hands out
      // the float widened to double.
      return x !== undefined && Object.is(Math.fround(x), dv) ? null : differ();
    }
    case 'varchar':
    case 'enum':
      return kb === dv ? null : differ();
    case 'bool':
      return kb === dv ? null : differ();
    case 'blob': {
      const want = Buffer.from(dv.bytes).toString('base64');
      return kb === want ? null : differ(JSON.stringify(want));
    }
    case 'uuid': {
      const want = dv.toString().toLowerCase();
      return kb === want ? null : differ(JSON.stringify(want));
    }
    case 'date': {
      const want = formatDate(dv.days);
      return kb === want ? null : differ(JSON.stringify(want));
    }
    case 'time': {
      const us = Number(dv.micros);
      const s = Math.floor(us / 1e6);
      const want = `${pad(Math.floor(s / 3600), 2)}:${pad(Math.floor(s / 60) % 60, 2)}:${pad(s % 60, 2)}.${pad(us % 1e6, 6)}`;
      return kb === want ? null : differ(JSON.stringify(want));
    }
    case 'timestamp': {
      // The digits follow the file's unit: DuckDB stores TIMESTAMP_S as microseconds.
      let nanos;
      if ('nanos' in dv) nanos = dv.nanos;
      else if ('micros' in dv) nanos = dv.micros * 1000n;
      else if ('millis' in dv) nanos = dv.millis * 1000000n;
      else nanos = dv.seconds * 1000000000n;
      const digits = { ns: 9, us: 6, ms: 3, s: 6 }[type.unit];
      const want = formatTimestamp(nanos, digits, type.utc);
      return kb === want ? null : differ(JSON.stringify(want));
    }
    case 'decimal': {
      const want = formatDecimal(dv.value, dv.scale);
      return kb === want ? null : differ(JSON.stringify(want));
    }
    case 'struct': {
      if (!(kb instanceof JObj)) return differ();
      const names = type.fields.map(([name]) => name);
      const keys = kb.entries.map(([k]) => k);
      if (keys.join('\u0000') !== names.join('\u0000')) return `${where}: kbdata fields ${keys}, expected ${names}`;
      for (let f = 0; f < names.length; f++) {
        const d = difference(type.fields[f][1], kb.entries[f][1], dv.entries[names[f]], `${where}.${names[f]}`);
        if (d) return d;
      }
      return null;
    }
    case 'list':
    case 'array': {
      if (!Array.isArray(kb)) return differ();
      const items = dv.items;
      if (kb.length !== items.length) return `${where}: kbdata ${kb.length} elements, DuckDB ${items.length}`;
      for (let k = 0; k < items.length; k++) {
        const d = difference(type.elem, kb[k], items[k], `${where}[${k}]`);
        if (d) return d;
      }
      return null;
    }
    case 'map': {
      if (!Array.isArray(kb)) return differ();
      const entries = dv.entries;
      if (kb.length !== entries.length) return `${where}: kbdata ${kb.length} entries, DuckDB ${entries.length}`;
      for (let k = 0; k < entries.length; k++) {
        const e = kb[k];
        if (!(e instanceof JObj) || e.entries.length !== 2 || e.entries[0][0] !== 'key' || e.entries[1][0] !== 'value') {
          return `${where}[${k}]: kbdata entry ${cut(showKb(e))} is not {"key":...,"value":...}`;
        }
        const d = difference(type.key, e.entries[0][1], entries[k].key, `${where}[${k}].key`) ??
                  difference(type.value, e.entries[1][1], entries[k].value, `${where}[${k}].value`);
        if (d) return d;
      }
      return null;
    }
    default:
      throw new Error(`no comparison for ${type.kind}`);
  }
}

// ---------------------------------------------------------------------------------------------
// One seed: a random table, written as V1 and as V2, each compared.

const CODECS = ['uncompressed', 'snappy', 'gzip', 'zstd', 'lz4', 'lz4_raw', 'brotli'];
const counts = { seeds: 0, files: 0, v1: 0, v2: 0, nested: 0, slices: 0, rows: 0, values: 0, failures: 0 };
const failures = [];

function fail(seed, file, what) {
  counts.failures++;
  const line = `FAIL seed ${seed} ${path.relative(process.cwd(), file)}: ${what}`;
  failures.push(line);
  console.log(line);
}

async function runSeed(seed) {
  const rng = makeRng(seed);
  fieldCounter = 0;
  const flat = rng.chance(0.5);
  const columns = [];
  const ncols = rng.int(1, 8);
  for (let c = 0; c < ncols; c++) {
    columns.push({ name: `c${c}`, type: flat ? leafType(rng) : nestedType(rng, 0) });
  }
  const rows = rng.pick([0, 1, 2, rng.int(3, 100), rng.int(100, 3000), rng.int(100, 3000), rng.int(3000, 9000)]);
  const gens = columns.map((c) => makeGenerator(c.type, rng));
  const table = `t${seed}`;
  await duck.run(`CREATE OR REPLACE TABLE ${table} (${columns.map((c) => `${c.name} ${c.type.sql}`).join(', ')})`);
  for (let r0 = 0; r0 < rows; r0 += 500) {
    const tuples = [];
    for (let r = r0; r < Math.min(rows, r0 + 500); r++) tuples.push(`(${gens.map((g) => g()).join(', ')})`);
    await duck.run(`INSERT INTO ${table} VALUES ${tuples.join(',\n')}`);
  }
  const isNested = columns.some((c) => ['struct', 'list', 'array', 'map'].includes(c.type.kind));
  counts.seeds++;

  for (const version of ['V1', 'V2']) {
    const codec = rng.pick(CODECS);
    const options = [`FORMAT parquet`, `PARQUET_VERSION ${version}`, `COMPRESSION ${codec}`,
      `ROW_GROUP_SIZE ${rng.pick([2048, 4096, 100000, rng.int(1, 10000)])}`];
    if (rng.chance(0.3)) options.push(`DICTIONARY_SIZE_LIMIT ${rng.pick([1, 16, 1000])}`);
    const file = path.join(OUT, `seed${seed}-${version.toLowerCase()}-${codec}.parquet`);
    await duck.run(`COPY ${table} TO ${sqlString(file)} (${options.join(', ')})`);
    counts.files++;
    counts[version.toLowerCase()]++;
    if (isNested) counts.nested++;
    const ok = await compareFile(seed, file, columns, `[${options.slice(1).join(', ')}]`, rng);
    if (ok && !keepFiles) fs.rmSync(file);
  }
  await duck.run(`DROP TABLE ${table}`);
  await runKernelBotSeed(seed);
}

// kbdata's `cat` of `file` with `extra` arguments as lines, or a failure (returns null).
function kbdataCat(seed, file, options, extra) {
  const r = spawnSync(KBDATA, ['cat', file, '--format', 'jsonl', ...extra], { maxBuffer: 1 << 30, encoding: 'buffer' });
  if (r.error) throw r.error;
  if (r.status !== 0) {
    fail(seed, file, `${options} kbdata cat${extra.map((a) => ` ${a}`).join('')} exited ${r.status}: ${r.stderr.toString().trim()}`);
    return null;
  }
  const lines = r.stdout.toString('utf8').split('\n');
  if (lines.pop() !== '') {
    fail(seed, file, `${options} kbdata's output does not end with a newline`);
    return null;
  }
  return lines;
}

// Compares kbdata's lines with DuckDB's rows (`expected`, the first being row `first` of the
// file) over `columns`, in that order. Returns whether they are equal (a failure is reported).
function compareRows(seed, file, options, lines, expected, first, columns) {
  if (lines.length !== expected.length) {
    fail(seed, file, `${options} kbdata gives ${lines.length} rows, DuckDB ${expected.length}`);
    return false;
  }
  const names = columns.map((c) => c.name);
  for (let i = 0; i < lines.length; i++) {
    const row = first + i;
    let got;
    try {
      got = parseJson(lines[i]);
    } catch (error) {
      fail(seed, file, `${options} row ${row}: kbdata's line is not JSON (${error.message}): ${cut(lines[i])}`);
      return false;
    }
    const keys = got instanceof JObj ? got.entries.map(([k]) => k) : [];
    if (keys.join(',') !== names.join(',')) {
      fail(seed, file, `${options} row ${row}: kbdata columns ${keys}, DuckDB ${names}`);
      return false;
    }
    for (let c = 0; c < columns.length; c++) {
      const d = difference(columns[c].type, got.entries[c][1], expected[i][names[c]],
                           `column ${names[c]} (${columns[c].type.sql}) row ${row}`);
      counts.values++;
      if (d) {
        fail(seed, file, `${options} ${d}`);
        return false;
      }
    }
  }
  counts.rows += lines.length;
  return true;
}

// The whole file, then a random slice of rows (--offset, --limit) of a random subset of columns in
// random order (--columns), which takes the reader's skipping paths.
async function compareFile(seed, file, columns, options, rng) {
  const expected = (await duck.runAndReadAll(`SELECT * FROM read_parquet(${sqlString(file)})`)).getRowObjects();
  const lines = kbdataCat(seed, file, options, []);
  if (!lines || !compareRows(seed, file, options, lines, expected, 0, columns)) return false;
  if (expected.length === 0) return true;
  const offset = rng.int(0, expected.length);
  const limit = rng.int(0, expected.length - offset + 1);
  const chosen = columns.filter(() => rng.chance(0.6));
  if (chosen.length === 0) chosen.push(rng.pick(columns));
  for (let i = chosen.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [chosen[i], chosen[j]] = [chosen[j], chosen[i]];
  }
  const extra = ['--columns', chosen.map((c) => c.name).join(','), '--offset', String(offset), '--limit', String(limit)];
  const slice = kbdataCat(seed, file, options, extra);
  counts.slices++;
  return slice !== null &&
         compareRows(seed, file, `${options} ${extra.join(' ')}`, slice, expected.slice(offset, offset + limit), offset, chosen);
}

// ---------------------------------------------------------------------------------------------
// KernelBot flat files of random column types (README.md, "KernelBot type variants"). Per seed, a
// table in the flat schema (docs/dataset.md §4.1) of random values, each column cast by DuckDB to
// one of the types docs/data-model.md ("Accepted column types") accepts for its field, some
// optional columns left out; `kbdata submissions --format jsonl` of the file must give every row as
// docs/cli.md says for DuckDB's reading of the same file. Its own random stream, so the generic
// tables of a seed do not depend on it.

const KB_FIELDS = ['submission_id', 'leaderboard_id', 'problem_name', 'user_id', 'user_name', 'code_id',
  'file_name', 'submission_time', 'status', 'score', 'passed', 'mode', 'runner', 'code'];
const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;
const clampBig = (lo, hi) => [lo < INT64_MIN ? INT64_MIN : lo, hi > INT64_MAX ? INT64_MAX : hi];

// An id type: { sql (of the cast, `$` is the BIGINT column), lo, hi }.
function kbIdVariant(rng) {
  const r = rng.int(0, 11);
  if (r < 8) {
    const t = INT_TYPES[r];
    const [lo, hi] = clampBig(t.min, t.max);
    return { name: t.sql, sql: `$::${t.sql}`, lo, hi };
  }
  if (r === 8) {
    return rng.chance(0.5) ? { name: 'DOUBLE', sql: '$::DOUBLE', lo: -(1n << 53n), hi: 1n << 53n }
                           : { name: 'FLOAT', sql: '$::FLOAT', lo: -(1n << 24n), hi: 1n << 24n };
  }
  if (r === 9) {
    const p = rng.int(1, 38);
    const s = rng.int(0, Math.min(p - 1, 6));
    const [lo, hi] = clampBig(-(10n ** BigInt(p - s) - 1n), 10n ** BigInt(p - s) - 1n);
    return { name: `DECIMAL(${p},${s})`, sql: `$::DECIMAL(${p},${s})`, lo, hi };
  }
  return r === 10 ? { name: 'VARCHAR', sql: '$::VARCHAR', lo: 0n, hi: INT64_MAX }
                  : { name: 'BLOB', sql: 'encode($::VARCHAR)', lo: 0n, hi: INT64_MAX };
}

function kbIdValue(rng, v, small) {
  const r = rng.float();
  let x;
  if (small || r < 0.3) x = BigInt(rng.int(0, 1000));
  else if (r < 0.6) x = rng.pick([v.lo, v.hi, 0n, 1n, -1n, v.lo + 1n, v.hi - 1n]);
  else x = rng.big(v.lo, v.hi);
  return x < v.lo ? v.lo : x > v.hi ? v.hi : x;
}

function kbString(rng) {
  const s = randomString(rng);
  return s.length > 2000 ? s.slice(0, 2000) : s;
}

function kbTimestampNanos(rng) {
  const r = rng.float();
  if (r < 0.2) return rng.pick([0n, 1n, -1n, 999n, -1001n, 9000000000000000000n, -9000000000000000000n]);
  if (r < 0.6) return rng.big(1735689600000000000n, 1798761600000000000n);  // 2025-2026
  return rng.big(-9000000000000000000n, 9000000000000000000n);
}

function kbScoreVariant(rng) {
  const r = rng.int(0, 5);
  if (r <= 1) return { name: 'DOUBLE', sql: '$', kind: 'double' };
  if (r === 2) return { name: 'FLOAT', sql: '$::FLOAT', kind: 'float' };
  if (r === 3) {
    const p = rng.int(1, 38);
    const s = rng.int(0, p);
    return { name: `DECIMAL(${p},${s})`, sql: `$::DECIMAL(${p},${s})`, kind: 'decimal', whole: Math.min(p - s, 15) };
  }
  const t = rng.pick(INT_TYPES);
  const [lo, hi] = clampBig(t.min < -(1n << 53n) ? -(1n << 53n) : t.min, t.max > 1n << 53n ? 1n << 53n : t.max);
  return { name: t.sql, sql: `$::${t.sql}`, kind: 'int', lo, hi };
}

function kbScoreValue(rng, v) {
  const sqlDouble = (x) => (Object.is(x, -0) ? "'-0.0'::DOUBLE" : `${x}::DOUBLE`);
  switch (v.kind) {
    case 'double':
      return sqlDouble(rng.pick([0, -0, 1.5, 1e300, 5e-324, -1.25, 2.2250738585072014e-308,
        rng.float() * 1e-3, rng.float() * 10 ** -rng.int(3, 9), rng.float() * 1e6]));
    case 'float':
      return sqlDouble(rng.pick([0, -0, 1.5, 1e30, 1e-40, -1.25, rng.float() * 1e-3,
        rng.float() * 10 ** -rng.int(3, 9)]));
    case 'decimal':
      return sqlDouble((rng.float() * 2 - 1) * 10 ** v.whole * 0.9);
    default:
      return `'${rng.big(v.lo, v.hi)}'::DOUBLE`;
  }
}

// The text of an integer id as DuckDB hands it out in any of the id types, or null when it is not
// one (then the comparison fails naming it).
function kbIdText(v) {
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v).toString() : null;
  if (typeof v === 'string') return /^\d+$/.test(v) ? BigInt(v).toString() : null;
  if (v && v.bytes) return kbIdText(Buffer.from(v.bytes).toString('utf8'));
  if (v && 'scale' in v) {
    const d = 10n ** BigInt(v.scale);
    return v.value % d === 0n ? (v.value / d).toString() : null;
  }
  return null;
}

const kbText = (v) => (v === null || v === undefined ? null : typeof v === 'string' ? v : Buffer.from(v.bytes).toString('utf8'));
const kbNumber = (v) => (typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : Number(formatDecimal(v.value, v.scale)));
const kbShowNumber = (x) => (Object.is(x, -0) ? '-0' : String(x));

// DuckDB's row as the strings kbdata's fields must equal (JSON text; ids and scores by value).
function kbExpected(row, present) {
  const out = {};
  for (const f of KB_FIELDS) {
    const v = present.has(f) ? row[f] : null;
    if (f === 'status' && !present.has(f)) {
      // docs/data-model.md: derived as for legacy files.
      const passed = row.passed === true || row.passed === 1 || row.passed === 1n;
      out[f] = JSON.stringify(row.score !== null && passed ? 'succeeded' : 'failed');
    } else if (v === null || v === undefined) {
      out[f] = 'null';
    } else if (['submission_id', 'leaderboard_id', 'code_id'].includes(f)) {
      out[f] = kbIdText(v) ?? `not an id: ${showDuck(v)}`;
    } else if (f === 'user_id') {
      out[f] = JSON.stringify(typeof v === 'string' || v.bytes ? kbText(v) : kbIdText(v));
    } else if (f === 'submission_time') {
      const nanos = 'nanos' in v ? v.nanos : 'millis' in v ? v.millis * 1000000n : v.micros * 1000n;
      let micros = nanos / 1000n;
      if (nanos % 1000n < 0n) micros -= 1n;  // floored
      out[f] = JSON.stringify(formatTimestamp(micros * 1000n, 6, true));
    } else if (f === 'score') {
      out[f] = kbShowNumber(kbNumber(v));
    } else if (f === 'passed') {
      out[f] = String(v === true || v === 1 || v === 1n);
    } else {
      out[f] = JSON.stringify(kbText(v));
    }
  }
  return out;
}

// kbdata's object as the same strings, or a reason it cannot be one.
function kbGot(obj) {
  if (!(obj instanceof JObj)) return null;
  const out = {};
  for (const [k, v] of obj.entries) {
    if (k === 'note') continue;  // a registry leaderboard's note (docs/cli.md)
    if (v === null) out[k] = 'null';
    else if (v instanceof JNum && k === 'score') out[k] = kbShowNumber(Number(v.text));
    else if (v instanceof JNum) out[k] = /^-?\d+$/.test(v.text) ? BigInt(v.text).toString() : v.text;
    else out[k] = JSON.stringify(v);
  }
  return out;
}

// docs/data-model.md, "Spellings" and "Repeated rows", restated: a status is trimmed (ASCII
// blanks) and in ASCII lower case; a runner is trimmed and compared ignoring ASCII case, shown as
// the hardware table's spelling when it has one, else as the first spelling of it in the file; a
// file with a runner column gives each (submission_id, runner) once, its first row.
const KNOWN_RUNNERS = ['T4', 'L4', 'A100', 'H100', 'B200', 'NVIDIA', 'B200_Nebius', 'MI250', 'MI300',
  'MI300x8', 'MI355X', 'MI300X'];
const trimBlanks = (t) => t.replace(/^[ \t\n\v\f\r]+|[ \t\n\v\f\r]+$/g, '');
const asciiLower = (t) => t.replace(/[A-Z]/g, (c) => c.toLowerCase());

function kbModelRules(expected, present) {
  const shown = new Map();  // a runner the table lacks: lower-cased -> its first spelling
  for (const e of expected) {
    const f = e.fields;
    if (present.has('status') && f.status !== 'null') {
      f.status = JSON.stringify(asciiLower(trimBlanks(JSON.parse(f.status))));
    }
    if (f.runner !== 'null') {
      const t = trimBlanks(JSON.parse(f.runner));
      const known = KNOWN_RUNNERS.find((k) => asciiLower(k) === asciiLower(t));
      if (!known && !shown.has(asciiLower(t))) shown.set(asciiLower(t), t);
      f.runner = JSON.stringify(known ?? shown.get(asciiLower(t)));
    }
  }
  if (!present.has('runner')) return expected;
  const seen = new Set();
  return expected.filter((e) => {
    const key = `${e.fields.submission_id}\u0000${e.fields.runner}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const kbCounts = { files: 0, rows: 0, values: 0, dropped: 0, enums: 0, failures: 0 };

async function runKernelBotSeed(seed) {
  const rng = makeRng((seed ^ 0x4b424442) >>> 0);
  const idv = {};
  for (const f of ['submission_id', 'leaderboard_id', 'code_id']) idv[f] = kbIdVariant(rng);
  const userIdv = rng.chance(0.5) ? null : kbIdVariant(rng);  // null: a string column
  const scorev = kbScoreVariant(rng);
  const rows = rng.pick([0, 1, rng.int(2, 40), rng.int(2, 40), rng.int(40, 400), rng.int(400, 2000)]);
  const nullRate = () => rng.pick([0, 0, 0.1, 0.5, 1]);
  const rates = Object.fromEntries(['user_name', 'file_name', 'score', 'passed', 'mode', 'runner', 'code'].map((f) => [f, nullRate()]));
  const smallIds = rng.chance(0.3);
  const runners = ['B200', 'H100', 'MI300', 'A100', 'L4', 'T4', 'ünï', ''];
  const tuples = [];
  const maybe = (f, make) => (rng.chance(rates[f]) ? 'NULL' : make());
  for (let r = 0; r < rows; r++) {
    const id = (f) => `'${kbIdValue(rng, idv[f], smallIds)}'::BIGINT`;
    const userId = userIdv ? `'${kbIdValue(rng, userIdv, smallIds)}'::BIGINT` : sqlString(kbString(rng));
    let code = kbString(rng);
    if (code.startsWith('\\x')) code = `c${code}`;  // not a hex escape (docs/data-model.md, "Code decoding")
    tuples.push(`(${[id('submission_id'), id('leaderboard_id'), sqlString(kbString(rng)), userId,
      maybe('user_name', () => sqlString(kbString(rng))), id('code_id'), maybe('file_name', () => sqlString(kbString(rng))),
      `make_timestamp_ns(${kbTimestampNanos(rng)})`, sqlString(rng.pick(['succeeded', 'failed', 'hacked', 'running', kbString(rng)])),
      maybe('score', () => kbScoreValue(rng, scorev)), maybe('passed', () => (rng.chance(0.5) ? 'true' : 'false')),
      maybe('mode', () => sqlString(rng.pick(['leaderboard', 'test', 'benchmark', 'profile', kbString(rng)]))),
      maybe('runner', () => sqlString(rng.chance(0.8) ? rng.pick(runners) : kbString(rng))),
      maybe('code', () => sqlString(code))].join(', ')})`);
  }
  // Each column's type in the file.
  const stringv = () => (rng.chance(0.6) ? { name: 'VARCHAR', sql: '$' } : { name: 'BLOB', sql: 'encode($)' });
  const variants = {
    submission_id: idv.submission_id, leaderboard_id: idv.leaderboard_id, code_id: idv.code_id,
    user_id: userIdv ?? stringv(),
    submission_time: rng.pick([{ name: 'TIMESTAMP_NS', sql: '$' }, { name: 'TIMESTAMP', sql: '$::TIMESTAMP' },
      { name: 'TIMESTAMP_MS', sql: '$::TIMESTAMP::TIMESTAMP_MS' }, { name: 'TIMESTAMPTZ', sql: '$::TIMESTAMPTZ' }]),
    score: scorev,
    passed: rng.chance(0.5) ? { name: 'BOOLEAN', sql: '$' } : (() => {
      const t = rng.pick(INT_TYPES);
      return { name: t.sql, sql: `$::INTEGER::${t.sql}` };
    })(),
  };
  for (const f of ['problem_name', 'user_name', 'file_name', 'status', 'mode', 'runner', 'code']) variants[f] = stringv();
  const present = new Set(KB_FIELDS.filter((f) => !['user_name', 'runner', 'mode', 'status'].includes(f) || rng.chance(0.8)));
  kbCounts.dropped += KB_FIELDS.length - present.size;

  // problem_name, status, mode and runner (few distinct values) are sometimes DuckDB ENUMs.
  const enums = ['problem_name', 'status', 'mode', 'runner'].filter((f) => rng.chance(0.2));
  const table = `kb${seed}`;
  await duck.run(`CREATE OR REPLACE TABLE ${table} (submission_id BIGINT, leaderboard_id BIGINT, problem_name VARCHAR,
    user_id ${userIdv ? 'BIGINT' : 'VARCHAR'}, user_name VARCHAR, code_id BIGINT, file_name VARCHAR,
    submission_time TIMESTAMP_NS, status VARCHAR, score DOUBLE, passed BOOLEAN, mode VARCHAR, runner VARCHAR,
    code VARCHAR)`);
  for (let r0 = 0; r0 < rows; r0 += 500) await duck.run(`INSERT INTO ${table} VALUES ${tuples.slice(r0, r0 + 500).join(',\n')}`);
  for (const f of enums) {
    const values = (await duck.runAndReadAll(`SELECT DISTINCT ${f} AS v FROM ${table} WHERE ${f} IS NOT NULL ORDER BY 1`))
      .getRowObjects().map((o) => sqlString(o.v));
    if (values.length === 0) continue;
    variants[f] = { name: 'ENUM', sql: (c) => `CAST(${c} AS ENUM(${values.join(', ')}))` };
    kbCounts.enums++;
  }
  const version = rng.pick(['V1', 'V2']);
  const codec = rng.pick(CODECS);
  const options = [`FORMAT parquet`, `PARQUET_VERSION ${version}`, `COMPRESSION ${codec}`,
    `ROW_GROUP_SIZE ${rng.pick([2048, 100000, rng.int(1, 500)])}`];
  const dir = path.join(OUT, `kernelbot-seed${seed}`);
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'kernelbot_random.parquet');
  const cast = (f) => (typeof variants[f].sql === 'function' ? variants[f].sql(f) : variants[f].sql.replaceAll('$', f));
  const select = [...present].map((f) => `${cast(f)} AS ${f}`).join(', ');
  await duck.run(`COPY (SELECT ${select} FROM ${table}) TO ${sqlString(file)} (${options.join(', ')})`);
  await duck.run(`DROP TABLE ${table}`);
  kbCounts.files++;
  const types = [...present].map((f) => `${f} ${variants[f].name}`).join(', ');
  const what = `[${options.slice(1).join(', ')}; ${types}${present.size < KB_FIELDS.length ? `; without ${KB_FIELDS.filter((f) => !present.has(f)).join(',')}` : ''}]`;
  const failKb = (message) => {
    kbCounts.failures++;
    const line = `FAIL seed ${seed} ${path.relative(process.cwd(), file)}: ${what} ${message}`;
    failures.push(line);
    console.log(line);
  };

  const duckRows = (await duck.runAndReadAll(`SELECT * FROM read_parquet(${sqlString(file)})`)).getRowObjects();
  const expected = kbModelRules(duckRows.map((row, i) => ({ row: i, fields: kbExpected(row, present) })), present);
  const r = spawnSync(KBDATA, ['submissions', '--data', dir, '--format', 'jsonl', '--columns', KB_FIELDS.join(',')],
                      { maxBuffer: 1 << 30, encoding: 'utf8' });
  if (r.error) throw r.error;
  if (r.status !== 0) return failKb(`kbdata submissions exited ${r.status}: ${r.stderr.trim()}`);
  const got = [];
  for (const line of r.stdout.split('\n').filter((l) => l !== '')) {
    let obj;
    try {
      obj = kbGot(parseJson(line));
    } catch (error) {
      return failKb(`kbdata's line is not JSON (${error.message}): ${cut(line)}`);
    }
    if (!obj || Object.keys(obj).join(',') !== KB_FIELDS.join(',')) return failKb(`kbdata's line has other fields: ${cut(line)}`);
    got.push(obj);
  }
  if (got.length !== expected.length) return failKb(`kbdata gives ${got.length} rows, DuckDB ${expected.length}`);
  // Order-insensitive: both sides sorted by (submission_id, runner), then by the whole row.
  const key = (o) => `${o.submission_id}\u0000${o.runner}\u0000${KB_FIELDS.map((f) => o[f]).join('\u0000')}`;
  const order = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
  got.sort((a, b) => order(key(a), key(b)));
  expected.sort((a, b) => order(key(a.fields), key(b.fields)));
  for (let i = 0; i < got.length; i++) {
    for (const f of KB_FIELDS) {
      kbCounts.values++;
      if (got[i][f] !== expected[i].fields[f]) {
        return failKb(`column ${f} (${present.has(f) ? variants[f].name : 'absent'}) row ${expected[i].row} ` +
                      `(submission_id ${expected[i].fields.submission_id}): kbdata ${cut(got[i][f])}, ` +
                      `DuckDB ${cut(expected[i].fields[f])}`);
      }
    }
  }
  kbCounts.rows += got.length;
  if (!keepFiles) fs.rmSync(dir, { recursive: true, force: true });
}

let firstSoakSeed = 0;
let lastSoakSeed = 0;
if (seeds) {
  for (const seed of seeds) await runSeed(seed);
} else {
  const first = crypto.randomInt(0, 2 ** 31);
  firstSoakSeed = first;
  console.log(`random: soak from seed ${first} for ${soakSeconds} s (KBDATA_SOAK_SEED=N reproduces seed N)`);
  for (let seed = first; (Date.now() - started) / 1000 < soakSeconds; seed = (seed + 1) >>> 0) {
    await runSeed(seed);
    lastSoakSeed = seed;
  }
}

const seconds = ((Date.now() - started) / 1000).toFixed(1);
const which = seeds ? (seeds.length === 1 ? `seed ${seeds[0]}` : `seeds ${seeds[0]}-${seeds.at(-1)}`) : `fresh seeds ${firstSoakSeed}-${lastSoakSeed}`;
console.log(`random: ${counts.seeds} tables (${which}), ${counts.files} DuckDB files (${counts.v1} V1, ${counts.v2} V2, ` +
            `${counts.nested} nested) read whole, ${counts.slices} of them also as a slice; ${counts.rows} rows and ` +
            `${counts.values} values compared, ` +
            `${counts.failures} failing files; ${kbCounts.files} KernelBot type-variant files ` +
            `(${kbCounts.dropped} optional columns left out, ${kbCounts.enums} ENUM columns) through kbdata submissions, ${kbCounts.rows} rows and ` +
            `${kbCounts.values} values compared, ${kbCounts.failures} failing; ${seconds} s`);
if (failures.length === 0 && !keepFiles) fs.rmSync(OUT, { recursive: true, force: true });
process.exit(failures.length === 0 ? 0 : 1);
