// Fixtures for tests/ops/luma_select.rs: what luma.gl 9.4.2's CPU backend (run on
// @luma.gl/test-utils' NullDevice) returns for `extent`, `gather`, `sequence` and `segmentedMap`
// on deterministic inputs, and which inputs it refuses.
//
// Regenerate with the three packages installed in $LUMA_DIR (default /work/luma:
// `npm install @luma.gl/gpgpu@9.4.2 @luma.gl/core@9.4.2 @luma.gl/test-utils@9.4.2`):
//
//   node tests/ops/luma/select.mjs > tests/ops/luma/select.json
//
// Columns are written as their vertex format and their bytes in hex (NaN, infinities and -0
// survive); outputs likewise, or the error message for a refused input.

import {createRequire} from 'node:module';
import path from 'node:path';

const require = createRequire(path.join(process.env.LUMA_DIR || '/work/luma', 'package.json'));
const gpgpu = require('@luma.gl/gpgpu');
const cpuBackend = require('@luma.gl/gpgpu/cpu');
const {NullDevice} = require('@luma.gl/test-utils');

gpgpu.backendRegistry.add('null', cpuBackend);
const device = new NullDevice({});

// A linear congruential generator: the fixtures are the same on every run.
let seed = 16;
const random = () => {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  return seed / 4294967296;
};
const pick = list => list[Math.floor(random() * list.length)];

const TYPED = {
  float32: Float32Array, uint8: Uint8Array, sint8: Int8Array, uint16: Uint16Array,
  sint16: Int16Array, uint32: Uint32Array, sint32: Int32Array
};
const RANGE = {
  uint8: [0, 255], sint8: [-128, 127], uint16: [0, 65535], sint16: [-32768, 32767],
  uint32: [0, 4294967295], sint32: [-2147483648, 2147483647]
};
const FLOATS = [NaN, -NaN, Infinity, -Infinity, 0, -0, 1.5e-42, 3.4028234e38, -2.5];

function formatName(type, size, normalized) {
  const base = normalized ? type.replace('uint', 'unorm').replace('sint', 'snorm') : type;
  return size === 1 ? base : `${base}x${size}`;
}

function hex(array) {
  return Buffer.from(array.buffer, array.byteOffset, array.byteLength).toString('hex');
}

// `rows` rows of `size` values of `type`: specials and extremes in about a third of the values.
function fill(type, size, rows, make) {
  const array = new TYPED[type](size * rows);
  for (let i = 0; i < array.length; i++) array[i] = make(i);
  return array;
}

function randomValue(type) {
  if (type === 'float32') return random() < 0.35 ? pick(FLOATS) : (random() - 0.5) * 2000;
  const [lo, hi] = RANGE[type];
  return random() < 0.3 ? pick([lo, hi]) : Math.floor(lo + random() * (hi - lo + 1));
}

function column(array, type, size, normalized = false) {
  return {
    json: {format: formatName(type, size, normalized), bytes: hex(array)},
    evaluator: gpgpu.GPUDataEvaluator.fromArray(array, {type, size, normalized})
  };
}

async function evaluate(make) {
  try {
    const result = make();
    await result.evaluate(device);
    const value = await result.readValue();
    return {format: formatName(result.type, result.size, Boolean(result.normalized)), bytes: hex(value)};
  } catch (error) {
    return {error: String(error.message || error)};
  }
}

const cases = [];

// extent: every integer type (plain and normalized) and float32 of 1 to 4 lanes, random rows,
// some with a NaN in the first row; -0 and +0 only apart (luma.gl's order-dependent rule for
// the two is a documented difference, tested in Rust).
for (const type of Object.keys(TYPED)) {
  for (const size of type === 'float32' ? [1, 2, 3, 4] : [1, 2, 4]) {
    for (const normalized of type === 'float32' || type.endsWith('32') ? [false] : [false, true]) {
      for (const rows of [1, 5, 40]) {
        const zero = pick([0, -0]);
        const array = fill(type, size, rows, () => {
          const v = randomValue(type);
          return Object.is(v, 0) || Object.is(v, -0) ? zero : v;
        });
        if (type === 'float32' && random() < 0.3) array[0] = NaN;
        const input = column(array, type, size, normalized);
        cases.push({op: 'extent', input: input.json, output: await evaluate(() => gpgpu.extent(input.evaluator))});
      }
    }
  }
}
{
  const input = column(new Float32Array(0), 'float32', 1);
  cases.push({op: 'extent', input: input.json, output: await evaluate(() => gpgpu.extent(input.evaluator))});
}

// gather: index columns of every integer type and float32 (fractions, NaN, negative, -0, past
// the end), sources of several types.
for (const idType of ['uint32', 'sint32', 'uint8', 'sint16', 'uint16', 'float32']) {
  for (const [type, size, normalized] of [['float32', 3, false], ['uint8', 2, true], ['sint16', 4, false], ['uint32', 1, false]]) {
    const sourceRows = 13;
    const source = column(fill(type, size, sourceRows, () => randomValue(type)), type, size, normalized);
    const ids = fill(idType, 1, 30, () => {
      const k = Math.floor(random() * (sourceRows + 4));
      if (idType === 'float32') return pick([k, k, k, k + 0.5, NaN, -0, -1, Infinity]);
      if (idType.startsWith('sint')) return random() < 0.2 ? -k - 1 : k;
      return random() < 0.1 ? RANGE[idType][1] : k;
    });
    const idColumn = column(ids, idType, 1);
    cases.push({
      op: 'gather',
      ids: idColumn.json,
      source: source.json,
      output: await evaluate(() => gpgpu.gather(idColumn.evaluator, source.evaluator))
    });
  }
}

// sequence: counts, starts and steps, wrapping past the 32-bit range included.
for (const [count, start, step] of [
  [0, 0, 1], [1, 7, 1], [10, 0, 1], [10, -5, 3], [6, 2147483645, 1], [6, -2147483647, -2],
  [5, 100, -40000], [4, 0, 0], [3, 0.5, 1]
]) {
  cases.push({op: 'sequence', count, start, step, output: await evaluate(() => gpgpu.sequence(count, start, step))});
}

// segmentedMap: empty segments first, inside and last; one segment; refused starts.
for (const [type, starts, vertexCount] of [
  ['uint32', [0, 0, 3, 3, 3, 10, 12], 12], ['uint32', [0], 5], ['uint16', [0, 2, 2, 7], 9],
  ['sint32', [0, 1, 1, 2], 3], ['uint8', [0, 4, 4], 4], ['uint32', [0, 0], 0],
  ['uint32', [1, 2], 4], ['uint32', [0, 5, 4], 9], ['uint32', [0, 5], 4]
]) {
  const segments = column(TYPED[type].from(starts), type, 1);
  cases.push({
    op: 'segmentedMap',
    segments: segments.json,
    vertexCount,
    output: await evaluate(() => gpgpu.segmentedMap(segments.evaluator, vertexCount))
  });
}
{
  const starts = [0];
  while (starts.length < 200) starts.push(starts[starts.length - 1] + (random() < 0.25 ? 0 : Math.floor(random() * 9)));
  const segments = column(Uint32Array.from(starts), 'uint32', 1);
  const vertexCount = starts[starts.length - 1] + 3;
  cases.push({
    op: 'segmentedMap',
    segments: segments.json,
    vertexCount,
    output: await evaluate(() => gpgpu.segmentedMap(segments.evaluator, vertexCount))
  });
}

process.stdout.write(`${JSON.stringify({source: '@luma.gl/gpgpu@9.4.2 cpu backend', cases})}\n`);
