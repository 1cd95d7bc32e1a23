// Fixtures for tests/ops/luma_elementwise.rs: luma.gl 9.4.2's own CPU backend (on
// @luma.gl/test-utils' NullDevice) run on deterministic random inputs, for every element-wise
// operation gpudata shares with it: pow, sqrt, abs, sin, cos, tan, exp, log, dot, length,
// equalAll, select, swizzle, interleave, and add/multiply/subtract/divide with untyped literals
// and with a single operand; integer data with integer data and with literals that do not fit
// the data's type, on either side; interleave past four lanes.
//
// Regenerate (needs the three packages and their peers, e.g. `npm install --legacy-peer-deps
// @luma.gl/gpgpu@9.4.2 @luma.gl/core@9.4.2 @luma.gl/test-utils@9.4.2 @luma.gl/engine@9.4.2
// @luma.gl/shadertools@9.4.2 @luma.gl/webgl@9.4.2 @luma.gl/webgpu@9.4.2` in $LUMA_DIR,
// default /work/luma):
//
//   node tests/ops/luma/elementwise.mjs > tests/ops/luma/elementwise.json
//
// Every array is written as little-endian hex bytes of its typed array, so NaN, infinities and
// -0 survive JSON.

import {createRequire} from 'node:module';
import path from 'node:path';

const lumaDir = process.env.LUMA_DIR || '/work/luma';
const require = createRequire(path.join(lumaDir, 'package.json'));
const gpgpu = require('@luma.gl/gpgpu');
const cpu = require('@luma.gl/gpgpu/cpu');
const {NullDevice} = require('@luma.gl/test-utils');

gpgpu.backendRegistry.add('null', cpu);
const device = new NullDevice({});

// xorshift32: the same inputs on every run.
let state = 0x9e3779b9;
function next() {
  state ^= state << 13;
  state >>>= 0;
  state ^= state >>> 17;
  state ^= state << 5;
  state >>>= 0;
  return state;
}

const ARRAYS = {
  float32: Float32Array,
  uint8: Uint8Array,
  sint8: Int8Array,
  uint16: Uint16Array,
  sint16: Int16Array,
  uint32: Uint32Array,
  sint32: Int32Array
};

const SPECIAL_F32 = [NaN, Infinity, -Infinity, 0, -0, 1e-40, -1e-45, 3.4e38, 1.17549435e-38];

// `count` values of `type`: floats in [lo, hi] with special values mixed in when `special`;
// integers of their whole range with their extremes mixed in.
function values(type, count, {lo = -1000, hi = 1000, special = true} = {}) {
  const out = new ARRAYS[type](count);
  const bytes = new Uint8Array(out.buffer);
  if (type === 'float32') {
    for (let i = 0; i < count; i++) {
      out[i] =
        special && next() % 4 === 0
          ? SPECIAL_F32[next() % SPECIAL_F32.length]
          : lo + ((hi - lo) * next()) / 4294967296;
    }
  } else {
    for (let i = 0; i < bytes.length; i++) bytes[i] = next() & 0xff;
    const extremes = {
      uint8: [0, 255], sint8: [-128, 127], uint16: [0, 65535], sint16: [-32768, 32767],
      uint32: [0, 4294967295], sint32: [-2147483648, 2147483647]
    }[type];
    for (let i = 0; i < count; i++) if (next() % 5 === 0) out[i] = extremes[next() % 2];
  }
  return out;
}

function hex(typed) {
  return Buffer.from(typed.buffer, typed.byteOffset, typed.byteLength).toString('hex');
}

function column(type, size, rows, options = {}) {
  const normalized = Boolean(options.normalized);
  const value = values(type, size * rows, options);
  return {
    json: {type, size, normalized, bytes: hex(value)},
    evaluator: gpgpu.GPUDataEvaluator.fromArray(value, {type, size, normalized})
  };
}

async function run(evaluator) {
  await evaluator.evaluate(device);
  const value = await evaluator.readValue();
  return {type: evaluator.type, size: evaluator.size, bytes: hex(value)};
}

const cases = [];
async function record(op, args, make, extra = {}) {
  const output = await run(make(...args.map(a => a.evaluator ?? a.literal)));
  cases.push({op, args: args.map(a => a.json ?? {literal: a.literal}), ...extra, output});
}

const ROWS = 24;
const TYPES = ['float32', 'uint8', 'sint8', 'uint16', 'sint16', 'uint32', 'sint32'];
const NORMALIZED = ['uint8', 'sint8', 'uint16', 'sint16'];

// The math functions, on floats in their WGSL domains and on every integer and normalized type.
const DOMAINS = {
  sqrt: {lo: 0, hi: 1e6}, abs: {}, sin: {lo: -3.14, hi: 3.14}, cos: {lo: -3.14, hi: 3.14},
  tan: {lo: -1.2, hi: 1.2}, exp: {lo: -10, hi: 10}, log: {lo: 0.001, hi: 1e6}
};
for (const [op, domain] of Object.entries(DOMAINS)) {
  for (const size of [1, 3]) {
    await record(op, [column('float32', size, ROWS, {...domain, special: op === 'abs'})], gpgpu[op]);
  }
  for (const type of TYPES.slice(1)) {
    await record(op, [column(type, 2, ROWS)], gpgpu[op]);
  }
  for (const type of NORMALIZED) {
    await record(op, [column(type, 4, ROWS, {normalized: true})], gpgpu[op]);
  }
}
await record(
  'pow',
  [column('float32', 2, ROWS, {lo: 0.01, hi: 100, special: false}), column('float32', 1, ROWS, {lo: -4, hi: 4, special: false})],
  gpgpu.pow
);
await record('pow', [column('uint8', 3, ROWS), {literal: 2}], gpgpu.pow);
await record('pow', [column('uint16', 2, ROWS, {normalized: true}), {literal: 0.5}], gpgpu.pow);

// dot, length, equalAll over pairs of types of one size.
for (const [a, b] of [['float32', 'float32'], ['uint8', 'sint8'], ['sint16', 'uint32'], ['uint16', 'float32'], ['sint32', 'sint32']]) {
  for (const size of [1, 2, 4]) {
    const special = false;
    await record('dot', [column(a, size, ROWS, {lo: -100, hi: 100, special}), column(b, size, ROWS, {lo: -100, hi: 100, special})], gpgpu.dot);
    await record('length', [column(a, size, ROWS, {lo: -100, hi: 100, special})], gpgpu.length);
    // equalAll: equal rows need equal inputs; the second is the first in half the rows.
    const x = column(a, size, ROWS, {lo: -4, hi: 4});
    await record('equalAll', [x, column(b, size, ROWS, {lo: -4, hi: 4})], gpgpu.equalAll);
    await record('equalAll', [x, x], gpgpu.equalAll);
  }
}
await record(
  'dot',
  [column('uint8', 3, ROWS, {normalized: true}), column('sint16', 3, ROWS, {normalized: true})],
  gpgpu.dot
);

// select: conditions of every kind, values joined.
for (const [c, t, f, size] of [
  ['uint8', 'float32', 'float32', 1], ['float32', 'sint16', 'uint8', 2], ['sint8', 'uint32', 'uint16', 4],
  ['float32', 'float32', 'sint32', 3], ['uint16', 'uint8', 'uint8', 4]
]) {
  await record(
    'select',
    [column(c, 1, ROWS, {lo: -1, hi: 1}), column(t, size, ROWS), column(f, size === 1 ? 1 : size, ROWS)],
    gpgpu.select
  );
  await record('select', [column(c, size, ROWS, {lo: -1, hi: 1}), column(t, size, ROWS), column(f, 1, ROWS)], gpgpu.select);
}
await record(
  'select',
  [column('uint8', 2, ROWS), column('uint8', 2, ROWS, {normalized: true}), column('sint8', 2, ROWS)],
  gpgpu.select
);

// swizzle (non-contiguous columns: luma.gl's kernel; contiguous ones: its view).
for (const [type, size, normalized, columns] of [
  ['float32', 4, false, [3, 1]], ['uint8', 4, false, [2, 1, 0]], ['sint16', 2, false, [1, 1, 0, 0]],
  ['uint8', 4, true, [3, 2, 1, 0]], ['uint32', 3, false, [1, 2]], ['sint8', 4, true, [0]]
]) {
  const x = column(type, size, ROWS, {normalized});
  const output = await run(gpgpu.swizzle(x.evaluator, columns));
  cases.push({op: 'swizzle', args: [x.json], columns, output});
}

// interleave: the promoted single column.
for (const parts of [
  [['float32', 1], ['uint8', 2]], [['uint8', 1], ['uint16', 2]], [['sint8', 2], ['uint8', 2]],
  [['uint8', 2], ['uint8', 2, true]], [['sint32', 1], ['sint32', 3]]
]) {
  await record(
    'interleave',
    parts.map(([type, size, normalized]) => column(type, size, ROWS, {normalized})),
    gpgpu.interleave
  );
}

// Arithmetic with untyped literals (the data's type stays) and with a single operand.
for (const op of ['add', 'subtract', 'multiply', 'divide']) {
  for (const [type, size] of [['sint32', 1], ['uint8', 2], ['sint16', 4], ['uint16', 3], ['float32', 2]]) {
    for (const literal of [3, -7, 0.75, [2, -0.5]]) {
      await record(op, [column(type, size, ROWS, {lo: -50, hi: 50}), {literal}], gpgpu[op]);
    }
  }
  for (const [type, size, normalized] of [['uint8', 4, true], ['sint16', 2, false], ['float32', 3, false]]) {
    await record(op, [column(type, size, ROWS, {normalized})], gpgpu[op]);
  }
}

// Integer data with integer data: every pair of integer types whose join is an integer type,
// over their whole ranges (uint32 and sint32 values far past 2^24), and chains of three.
const INTEGERS = ['uint8', 'sint8', 'uint16', 'sint16', 'uint32', 'sint32'];
for (const op of ['add', 'subtract', 'multiply', 'divide']) {
  for (const a of INTEGERS) {
    for (const b of INTEGERS) {
      const mixed = a !== b && [a, b].includes('uint32') && [a, b].some(t => t.startsWith('sint'));
      if (mixed) continue; // uint32 with a signed type joins to float32
      await record(op, [column(a, 2, ROWS), column(b, 1, ROWS)], gpgpu[op]);
    }
  }
}
for (const op of ['add', 'subtract', 'multiply']) {
  for (const types of [['uint32', 'uint32', 'uint32'], ['sint32', 'sint8', 'uint16'], ['sint8', 'uint8', 'sint8'], ['uint16', 'uint32', 'uint8']]) {
    await record(op, types.map(t => column(t, 2, ROWS)), gpgpu[op]);
  }
}

// Integer data with literals that are not integers of the computation's range: fractions,
// values past 2^31 and 2^32, negative values for unsigned data, on either side; the result is
// the exact value truncated and wrapped into the data's type.
for (const op of ['add', 'subtract', 'multiply', 'divide']) {
  for (const [type, size] of [['sint32', 1], ['uint32', 2], ['uint8', 2], ['sint16', 1]]) {
    for (const literal of [0.75, -2.5, 1e10 + 0.5, -6442450943.25, 4294967296.125, 3e9, [1.5, -1e-3], 1e-7, -123456.789]) {
      await record(op, [column(type, size, ROWS), {literal}], gpgpu[op]);
    }
    for (const literal of [0.5, -7.25, 1e10 + 0.5, 3e9]) {
      await record(op, [{literal}, column(type, size, ROWS)], gpgpu[op]);
    }
  }
}

// interleave past four lanes: rows of the promoted type.
for (const parts of [
  [['uint32', 2], ['uint32', 4], ['uint32', 4], ['uint32', 4]], [['uint8', 4], ['sint8', 3], ['uint8', 1]],
  [['float32', 3], ['uint16', 2], ['sint16', 4, true]], [['sint16', 4], ['uint8', 4], ['sint8', 2]],
  [['uint16', 3], ['uint16', 3]], [['float32', 4], ['float32', 4], ['float32', 4], ['float32', 4], ['float32', 1]]
]) {
  await record(
    'interleave',
    parts.map(([type, size, normalized]) => column(type, size, ROWS, {normalized})),
    gpgpu.interleave
  );
}

process.stdout.write(JSON.stringify({luma: '@luma.gl/gpgpu@9.4.2 cpu backend', rows: ROWS, cases}, null, 0) + '\n');
