import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { npyBuffer, NpyFormatError, readNpy, readNpyHeader, writeNpy, type NpyData } from '../src/io/npy.js';
import { SimtError } from '../src/errors.js';

// Files written by numpy 2 (np.save / np.lib.format.write_array), base64.
const NUMPY = {
  u4_1d: 'k05VTVBZAQB2AHsnZGVzY3InOiAnPHU0JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDQsKSwgfSAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoBAAAAAgAAAAMAAAD/////',
  f8_2d: 'k05VTVBZAQB2AHsnZGVzY3InOiAnPGY4JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDIsIDMpLCB9ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoAAAAAAAD4PwAAAAAAAALAAAAAAAAACEAAAAAAAAAQQAAAAAAAABRANVgAZi3rYX4=',
  i1: 'k05VTVBZAQB2AHsnZGVzY3InOiAnfGkxJywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDMsKSwgfSAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAqAAH8=',
  i8_v2: 'k05VTVBZAgB0AAAAeydkZXNjcic6ICc8aTgnLCAnZm9ydHJhbl9vcmRlcic6IEZhbHNlLCAnc2hhcGUnOiAoMywpLCB9ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoAAAAAAAAAgAEAAAAAAAAA/////////38=',
  u2_empty: 'k05VTVBZAQB2AHsnZGVzY3InOiAnPHUyJywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDAsKSwgfSAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAo=',
  f4_2x0: 'k05VTVBZAQB2AHsnZGVzY3InOiAnPGY0JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDIsIDApLCB9ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAo=',
  be: 'k05VTVBZAQB2AHsnZGVzY3InOiAnPnU0JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDIsKSwgfSAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoAAAABAAAAAg==',
  fortran: 'k05VTVBZAQB2AHsnZGVzY3InOiAnPGk0JywgJ2ZvcnRyYW5fb3JkZXInOiBUcnVlLCAnc2hhcGUnOiAoMiwgMyksIH0gICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoAAAAAAwAAAAEAAAAEAAAAAgAAAAUAAAA=',
  d3: 'k05VTVBZAQB2AHsnZGVzY3InOiAnfHUxJywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDEsIDEsIDEpLCB9ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoA',
  scalar: 'k05VTVBZAQB2AHsnZGVzY3InOiAnfHUxJywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKCksIH0gICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoF',
  c8: 'k05VTVBZAQB2AHsnZGVzY3InOiAnPGM4JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDEsKSwgfSAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoAAAAAAACAPw==',
};
const b64 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'base64'));
const ascii = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'latin1'));

function fileWithHeader(dict: string, data = new Uint8Array(0), major = 1): Uint8Array {
  const pre = major === 1 ? 10 : 12;
  const total = Math.ceil((pre + dict.length + 1) / 64) * 64;
  const hl = total - pre;
  const out = new Uint8Array(total + data.length);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, major, 0]);
  if (major === 1) out.set([hl & 0xff, hl >> 8], 8);
  else new DataView(out.buffer).setUint32(8, hl, true);
  out.set(ascii(dict + ' '.repeat(hl - dict.length - 1) + '\n'), pre);
  out.set(data, total);
  return out;
}

describe('npy: files written by numpy', () => {
  it('reads a 1-D uint32 array', () => {
    const a = readNpy(b64(NUMPY.u4_1d));
    expect(a.dtype).toBe('u4');
    expect(a.shape).toEqual([4]);
    expect(a.data).toEqual(new Uint32Array([1, 2, 3, 0xffffffff]));
  });
  it('reads a 2-D float64 array in C order', () => {
    const a = readNpy(b64(NUMPY.f8_2d));
    expect(a.shape).toEqual([2, 3]);
    expect(Array.from(a.data as Float64Array)).toEqual([1.5, -2.25, 3, 4, 5, 6e300]);
  });
  it('reads int8 (|i1) and int64 in format 2.0', () => {
    expect(readNpy(b64(NUMPY.i1)).data).toEqual(new Int8Array([-128, 0, 127]));
    const v2 = readNpy(b64(NUMPY.i8_v2));
    expect(readNpyHeader(b64(NUMPY.i8_v2)).version).toEqual([2, 0]);
    expect(v2.data).toEqual(new BigInt64Array([-(2n ** 63n), 1n, 2n ** 63n - 1n]));
  });
  it('reads empty arrays (shape (0,) and (2, 0))', () => {
    const e = readNpy(b64(NUMPY.u2_empty));
    expect(e.shape).toEqual([0]);
    expect(e.data).toBeInstanceOf(Uint16Array);
    expect(e.data.length).toBe(0);
    expect(readNpy(b64(NUMPY.f4_2x0)).shape).toEqual([2, 0]);
  });
  it('writes byte-identical files to numpy', () => {
    expect(writeNpy(new Uint32Array([1, 2, 3, 0xffffffff]))).toEqual(b64(NUMPY.u4_1d));
    expect(writeNpy(new Float64Array([1.5, -2.25, 3, 4, 5, 6e300]), [2, 3])).toEqual(b64(NUMPY.f8_2d));
    expect(writeNpy(new Int8Array([-128, 0, 127]))).toEqual(b64(NUMPY.i1));
    expect(writeNpy(new BigInt64Array([-(2n ** 63n), 1n, 2n ** 63n - 1n]), [3], { version: 2 })).toEqual(b64(NUMPY.i8_v2));
    expect(writeNpy(new Uint16Array(0))).toEqual(b64(NUMPY.u2_empty));
    expect(writeNpy(new Float32Array(0), [2, 0])).toEqual(b64(NUMPY.f4_2x0));
  });
  it('rejects big-endian, Fortran order, 3-D, 0-D and complex arrays with NpyFormatError', () => {
    expect(() => readNpy(b64(NUMPY.be))).toThrow(/big-endian/);
    expect(() => readNpy(b64(NUMPY.fortran))).toThrow(/Fortran/);
    expect(() => readNpy(b64(NUMPY.d3))).toThrow(/1-D and 2-D/);
    expect(() => readNpy(b64(NUMPY.scalar))).toThrow(NpyFormatError);
    expect(() => readNpy(b64(NUMPY.c8))).toThrow(/unsupported dtype/);
  });
});

describe('npy: round trips', () => {
  const cases: [string, () => NpyData][] = [
    ['u1', () => new Uint8Array([0, 1, 255])],
    ['i1', () => new Int8Array([-1, 5])],
    ['u2', () => new Uint16Array([65535, 0, 7])],
    ['i2', () => new Int16Array([-32768, 32767])],
    ['u4', () => new Uint32Array([4294967295])],
    ['i4', () => new Int32Array([-5, 6, 7])],
    ['u8', () => new BigUint64Array([2n ** 64n - 1n, 0n])],
    ['i8', () => new BigInt64Array([-3n])],
    ['f4', () => new Float32Array([NaN, -0, Infinity, 1.5])],
    ['f8', () => new Float64Array([Math.PI, -Infinity])],
  ];
  for (const [dtype, make] of cases) {
    it(`${dtype} round-trips with the same bytes, the data 64-byte aligned`, () => {
      const d = make();
      const f = writeNpy(d);
      expect(readNpyHeader(f).dataOffset % 64).toBe(0);
      const r = readNpy(f);
      expect(r.dtype).toBe(dtype);
      expect(new Uint8Array(r.data.buffer)).toEqual(new Uint8Array(d.buffer));
    });
  }
  it('2-D round trip, property based (any rows x cols, version 1 and 2, unaligned input)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 7 }), fc.integer({ min: 0, max: 9 }), fc.constantFrom<1 | 2>(1, 2), fc.integer({ min: 0, max: 7 }), (rows, cols, version, pad) => {
        const d = Int32Array.from({ length: rows * cols }, (_, i) => i * 7919 - 100);
        const f = writeNpy(d, [rows, cols], { version });
        const shifted = new Uint8Array(f.length + pad);
        shifted.set(f, pad);
        const r = readNpy(shifted.subarray(pad));
        expect(r.shape).toEqual([rows, cols]);
        expect(r.data).toEqual(d);
      }),
    );
  });
  it('writes Uint8ClampedArray as u1', () => {
    expect(readNpy(writeNpy(new Uint8ClampedArray([3, 4]))).dtype).toBe('u1');
  });
  it('writes format 1.0 by default', () => {
    expect(readNpyHeader(writeNpy(new Uint8Array(1))).version).toEqual([1, 0]);
  });
});

describe('npy: malformed input', () => {
  it('bad magic, short file, unknown version', () => {
    expect(() => readNpy(ascii('PK\x03\x04 not numpy at all'))).toThrow(/magic/);
    expect(() => readNpy(new Uint8Array([0x93, 0x4e, 0x55]))).toThrow(/too short/);
    const f = writeNpy(new Uint8Array(2));
    f[6] = 4;
    expect(() => readNpy(f)).toThrow(/version 4\.0/);
    const g = writeNpy(new Uint8Array(2));
    g[7] = 1;
    expect(() => readNpy(g)).toThrow(/version 1\.1/);
  });
  it('truncated header and truncated / over-long data', () => {
    const f = writeNpy(new Uint32Array([1, 2, 3]));
    expect(() => readNpy(f.subarray(0, 40))).toThrow(/truncated header/);
    expect(() => readNpy(f.subarray(0, f.length - 1))).toThrow(/truncated data/);
    const longer = new Uint8Array(f.length + 3);
    longer.set(f);
    expect(() => readNpy(longer)).toThrow(/trailing bytes/);
  });
  it('header problems: not a dict, missing keys, bad shape, bad literal, structured dtype', () => {
    expect(() => readNpy(fileWithHeader("['descr']"))).toThrow(/not a dict/);
    expect(() => readNpy(fileWithHeader("{'descr': '<u4', 'shape': (1,)}"))).toThrow(/fortran_order/);
    expect(() => readNpy(fileWithHeader("{'descr': '<u4', 'fortran_order': False, 'shape': (-1,)}"))).toThrow(/non-negative/);
    expect(() => readNpy(fileWithHeader("{'descr': '<u4', 'fortran_order': False, 'shape': (1,"))).toThrow(/Python literal/);
    expect(() => readNpy(fileWithHeader("{'descr': [('a', '<u4')], 'fortran_order': False, 'shape': (1,)}"))).toThrow(/structured/);
    expect(() => readNpy(fileWithHeader("{'descr': '=u4', 'fortran_order': False, 'shape': (1,)}"))).toThrow(/native-order/);
    expect(() => readNpy(fileWithHeader("{'descr': '<f2', 'fortran_order': False, 'shape': (1,)}"))).toThrow(/unsupported dtype/);
  });
  it('accepts a hand-written 2.0 header with double quotes and a big-endian one-byte dtype', () => {
    const r = readNpy(fileWithHeader('{"descr": ">u1", "fortran_order": False, "shape": (2,)}', new Uint8Array([9, 8]), 2));
    expect(r.data).toEqual(new Uint8Array([9, 8]));
  });
  it('writer errors: shape mismatch, 3-D shape, bad shape entry, unsupported array, version', () => {
    expect(() => writeNpy(new Uint8Array(5), [2, 3])).toThrow(/holds 6 elements, data has 5/);
    expect(() => writeNpy(new Uint8Array(1), [1, 1, 1])).toThrow(NpyFormatError);
    expect(() => writeNpy(new Uint8Array(1), [1.5])).toThrow(/non-negative integers/);
    expect(() => writeNpy(new DataView(new ArrayBuffer(4)) as unknown as Uint8Array)).toThrow(/unsupported array type/);
    expect(() => writeNpy(new Uint8Array(1), [1], { version: 3 as 1 })).toThrow(/version 1 or 2/);
  });
});

describe('npyBuffer: an .npy file as a job\'s input buffer', () => {
  it('is [dtype, data] with the file\'s dtype, for every dtype', () => {
    const cases: [NpyData, string][] = [
      [new Uint8Array([1, 2]), 'u8'], [new Int8Array([-1]), 'i8'], [new Uint16Array([7]), 'u16'], [new Int16Array([-7]), 'i16'],
      [new Uint32Array([9]), 'u32'], [new Int32Array([-9]), 'i32'], [new BigUint64Array([5n]), 'u64'], [new BigInt64Array([-5n]), 'i64'],
      [new Float32Array([1.5, 2.5, 3.5]), 'f32'], [new Float64Array([0.1]), 'f64'],
    ];
    for (const [data, dtype] of cases) {
      const [d, got] = npyBuffer(writeNpy(data));
      expect(d).toBe(dtype);
      expect(got).toEqual(data);
    }
    // A 2-D file gives its elements in C order; the shape is checked when the job gives one.
    const m = writeNpy(new Int32Array([1, 2, 3, 4, 5, 6]), [2, 3]);
    expect(npyBuffer(m, { name: 'm.npy', shape: [2, 3] })[1]).toEqual(new Int32Array([1, 2, 3, 4, 5, 6]));
  });

  it('a file of another shape, or not an .npy file, is a one-line NpyFormatError naming the file', () => {
    const x = writeNpy(new Float32Array(200));
    expect(() => npyBuffer(x, { name: 'x.npy', shape: [300] })).toThrow(new NpyFormatError('x.npy: shape (200,), the job expects (300,)'));
    expect(() => npyBuffer(writeNpy(new Float32Array(6), [2, 3]), { name: 'm.npy', shape: [6] })).toThrow('m.npy: shape (2, 3), the job expects (6,)');
    const e = (() => { try { npyBuffer(ascii('hello, not numpy'), { name: 'notes.npy' }); } catch (err) { return err; } })();
    expect(e).toBeInstanceOf(NpyFormatError);
    expect(e).toBeInstanceOf(SimtError);
    expect((e as Error).name).toBe('NpyFormatError');
    expect((e as Error).message).toBe('notes.npy: bad magic: not an .npy file (expected \\x93NUMPY)');
    expect(() => npyBuffer(b64(NUMPY.c8), { name: 'z.npy' })).toThrow(/^z\.npy: unsupported dtype descr '<c8'/);
    expect(() => npyBuffer(b64(NUMPY.c8))).toThrow(/^the \.npy file: /);
  });
});
