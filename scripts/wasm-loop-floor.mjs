// What V8 makes of the STS sort's two loops written directly in wasm, single-threaded on simt's
// own digis: the floor the compiled kernels (kernels/sts/countingSort.ts) sit above, to set beside
// native C (scripts/sts-soa-stages.c). Shared memory, as simt's pool has. After `npm run build`:
//   node scripts/wasm-loop-floor.mjs [n=1000000] [channels=1000]
// count: hist[channel[i]]++ for channel < nChannels, as written (V8 unrolls it twice) and unrolled
// four times by hand with the loads' offsets; scatter: outTime[colOff[c]++] = time[i].
const binaryen = (await import('binaryen')).default;
const { stsDigisForBench } = await import('../dist/src/data/synthetic.js');
const n = Number(process.argv[2] ?? 1e6), K = Number(process.argv[3] ?? 1000);
const pages = Math.ceil((16 * n + 8 * K) / 65536) + 1;
const one = (off) => `
    (local.set $c (i32.load offset=${4 * off} (i32.add (local.get $ch) (i32.shl (local.get $b) (i32.const 2)))))
    (if (i32.lt_u (local.get $c) (local.get $K)) (then
      (local.set $p (i32.add (local.get $hist) (i32.shl (local.get $c) (i32.const 2))))
      (i32.store (local.get $p) (i32.add (i32.load (local.get $p)) (i32.const 1)))))`;
const unrolled = (u) => `
  (block $out (loop $l
    (br_if $out (i32.ge_s (i32.add (local.get $b) (i32.const ${u - 1})) (local.get $e)))
    ${Array.from({ length: u }, (_, k) => one(k)).join('')}
    (local.set $b (i32.add (local.get $b) (i32.const ${u})))
    (br $l)))`;
const wat = `(module
 (memory (export "mem") ${pages} ${pages} shared)
 (func (export "count1") (param $ch i32) (param $hist i32) (param $b i32) (param $e i32) (param $K i32) (local $c i32) (local $p i32)
  ${unrolled(1)})
 (func (export "count4") (param $ch i32) (param $hist i32) (param $b i32) (param $e i32) (param $K i32) (local $c i32) (local $p i32)
  ${unrolled(4)} ${unrolled(1)})
 (func (export "scatter") (param $ch i32) (param $tm i32) (param $ot i32) (param $col i32) (param $b i32) (param $e i32) (param $K i32)
  (local $c i32) (local $p i32) (local $at i32)
  (block $out (loop $l
    (br_if $out (i32.ge_s (local.get $b) (local.get $e)))
    (local.set $c (i32.load (i32.add (local.get $ch) (i32.shl (local.get $b) (i32.const 2)))))
    (if (i32.lt_u (local.get $c) (local.get $K)) (then
      (local.set $p (i32.add (local.get $col) (i32.shl (local.get $c) (i32.const 2))))
      (local.set $at (i32.load (local.get $p)))
      (i32.store (local.get $p) (i32.add (local.get $at) (i32.const 1)))
      (i32.store (i32.add (local.get $ot) (i32.shl (local.get $at) (i32.const 2)))
        (i32.load (i32.add (local.get $tm) (i32.shl (local.get $b) (i32.const 2)))))))
    (local.set $b (i32.add (local.get $b) (i32.const 1)))
    (br $l)))))`;
const mod = binaryen.parseText(wat);
mod.setFeatures(binaryen.Features.MVP | binaryen.Features.Atomics);
if (!mod.validate()) throw new Error('invalid module');
const { instance } = await WebAssembly.instantiate(mod.emitBinary());
const E = instance.exports, m = new Uint32Array(E.mem.buffer);
const CH = 0, TM = n, OT = 2 * n, HIST = 3 * n, COL = 3 * n + K;
const words = stsDigisForBench(n, K, 1);
for (let i = 0; i < n; i++) { m[CH + i] = words[2 * i]; m[TM + i] = words[2 * i + 1]; }
const counts = new Uint32Array(K); for (let i = 0; i < n; i++) counts[m[CH + i]]++;
const start = new Uint32Array(K); for (let c = 1; c < K; c++) start[c] = start[c - 1] + counts[c - 1];
const med = (f, reps = n > 4e6 ? 15 : 201) => { const t = []; for (let r = 0; r < reps; r++) { const t0 = performance.now(); f(); t.push(performance.now() - t0); } t.sort((a, b) => a - b); return t[t.length >> 1]; };
const c1 = med(() => { m.fill(0, HIST, HIST + K); E.count1(4 * CH, 4 * HIST, 0, n, K); });
const c4 = med(() => { m.fill(0, HIST, HIST + K); E.count4(4 * CH, 4 * HIST, 0, n, K); });
const sc = med(() => { m.set(start, COL); E.scatter(4 * CH, 4 * TM, 4 * OT, 4 * COL, 0, n, K); });
for (let c = 0; c < K; c++) if (m[HIST + c] !== counts[c]) throw new Error(`count of channel ${c} is ${m[HIST + c]}, not ${counts[c]}`);
console.log(`wasm loops, one thread, n=${n} channels=${K} (medians, ms): count ${c1.toFixed(3)}, count unrolled 4x ${c4.toFixed(3)}, scatter ${sc.toFixed(3)}`);
