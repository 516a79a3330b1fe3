// Launches back to back at W workers: the STS count over 16 chunks of 1M channels (CH sets the
// count table's row length), and `spin` over 16 blocks of 30,000 iterations; LONG=1 adds 16 blocks
// of 300,000 and 160 blocks of 30,000; ALONE=1 the count of one chunk alone; TINY=1 short launches
// (3,000 awaited, medians of the last 2,500); MEM the device's memoryBytes (default 1 GiB).
// `node scripts/launch-scaling-probe.mjs W [hostSpinMicros] [spinMicros]`, pinned with taskset.
const { createDevice } = await import('../dist/src/device.js');
const { shippedKernels } = await import('../dist/src/shippedModule.js');
const { stsDigisForBench } = await import('../dist/src/data/synthetic.js');
const B = await import('../dist/src/kernels/index.js');
const W = Number(process.argv[2] ?? 16), ch = Number(process.env.CH ?? 1000), n = 1e6, chunks = 16;
const dev = await createDevice({ backend: 'wasm', workers: W, memoryBytes: Number(process.env.MEM ?? 2 ** 30), ...(process.argv[3] ? { hostSpinMicros: Number(process.argv[3]) } : {}), ...(process.argv[4] ? { spinMicros: Number(process.argv[4]) } : {}) });
const K = await shippedKernels(dev);
const med = (a) => { const s = [...a].sort((x, y) => x - y); return s[s.length >> 1]; };
const words = stsDigisForBench(n, 1000, 1);
const cw = new Uint32Array(n); for (let i = 0; i < n; i++) cw[i] = words[2 * i];
const chan = await dev.upload('u32', cw);
const counts = dev.alloc('u32', chunks * ch), bad = dev.alloc('u32', 1), out = dev.alloc('i32', 1);
await bad.fill(0xffffffff);
const time = async (f) => { const t = []; for (let r = 0; r < 300; r++) { const t0 = performance.now(); await f(); t.push((performance.now() - t0) * 1000); } return med(t.slice(50)); };
const count = await time(() => dev.launch(K.stsCountChunksSoA, { grid: chunks, block: 1 }, [chan, counts, n, ch, bad]));
const tiny = [];
if (process.env.TINY) {
  const out6 = dev.alloc('i32', 64 * 6 * 16);
  for (const [name, f] of [['empty<1,1>', () => dev.launch(B.emptyKernel, { grid: 1, block: 1 }, [])], ['empty<8,256>', () => dev.launch(B.emptyKernel, { grid: 8, block: 256 }, [])], ['writeIndices<16,64>', () => dev.launch(B.writeIndices, { grid: 16, block: 64 }, [out6])]]) {
    const t = [];
    for (let r = 0; r < 3000; r++) { const t0 = performance.now(); await f(); t.push((performance.now() - t0) * 1000); }
    tiny.push(`${name} ${med(t.slice(500)).toFixed(1)}`);
  }
}
const alone = process.env.ALONE ? await time(() => dev.launch(K.stsCountChunksSoA, { grid: 1, block: 1 }, [chan, counts, n / chunks, ch, bad])) : NaN;
const spin = await time(() => dev.launch(B.spin, { grid: chunks, block: 1 }, [30000, out]));
const spinMany = process.env.LONG ? await time(() => dev.launch(B.spin, { grid: 160, block: 1 }, [30000, out])) : NaN;
const spinLong = process.env.LONG ? await time(() => dev.launch(B.spin, { grid: chunks, block: 1 }, [300000, out])) : NaN;
console.log(`CH=${ch} W=${W} hostSpin=${process.argv[3] ?? (dev.hostSpinOnlyWhenShort ? 'short launches' : 'default')} spin=${process.argv[4] ?? 200}: count ${count.toFixed(1)} µs (one chunk alone ${alone.toFixed(1)}), spin ${spin.toFixed(1)} µs, spin×10 ${spinLong.toFixed(1)} µs, spin on 160 blocks ${spinMany.toFixed(1)} µs per launch${tiny.length ? `; ${tiny.join(', ')} µs` : ''}`);
await dev.destroy(); process.exit(0);
