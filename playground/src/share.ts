// Sharing a workbench state: the kernel and the job in the URL fragment (JSON, deflate-raw
// compressed with CompressionStream, base64url), so a link reproduces a race for someone else;
// and "download as a project": the kernel and job as files for `simt build` / `simt racecheck`,
// in one uncompressed tar (written here: a few lines, no dependency).
import { filesRead, jobFileText, JobTextError, type InputFiles } from './job.js';

export const EXPLORE_STRATEGIES = ['random', 'pct', 'exhaustive'] as const;

/** The explore form: explore()'s strategy, schedules, PCT depth and first seed. */
export interface ExploreSettings { strategy: (typeof EXPLORE_STRATEGIES)[number]; schedules: number; depth: number; seed: number }

export const DEFAULT_EXPLORE: ExploreSettings = { strategy: 'random', schedules: 20, depth: 3, seed: 1 };

/** A shared workbench: the kernel, the job and (since they decide what a race looks like) the explore settings. */
export interface Shared { v: 1; path: string; kernel: string; job: string; explore?: ExploreSettings }

function isExploreSettings(e: unknown): e is ExploreSettings {
  const x = e as Partial<ExploreSettings> | null;
  return !!x && typeof x === 'object' && (EXPLORE_STRATEGIES as readonly unknown[]).includes(x.strategy) &&
    [x.schedules, x.depth, x.seed].every((v) => Number.isSafeInteger(v) && (v as number) >= 0);
}

/** A fragment that is not a shared workbench (corrupt, truncated, another version). */
export class ShareLinkError extends Error {
  override name = 'ShareLinkError';
}

async function pipe(bytes: Uint8Array, stream: CompressionStream | DecompressionStream): Promise<Uint8Array> {
  const out = new Response(new Blob([bytes as BlobPart]).stream().pipeThrough(stream));
  return new Uint8Array(await out.arrayBuffer());
}

const b64url = (b: Uint8Array): string => {
  let s = '';
  for (const x of b) s += String.fromCharCode(x);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
};
const unb64url = (s: string): Uint8Array => Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));

export const FRAGMENT_KEY = 'w=';

export async function encodeShare(s: Omit<Shared, 'v'>): Promise<string> {
  const json = new TextEncoder().encode(JSON.stringify({ v: 1, ...s }));
  return FRAGMENT_KEY + b64url(await pipe(json, new CompressionStream('deflate-raw')));
}

/** The shared state of a fragment (`#w=…`), or undefined when the fragment holds none. */
export async function decodeShare(hash: string): Promise<Shared | undefined> {
  const h = hash.replace(/^#/, '');
  if (!h.startsWith(FRAGMENT_KEY)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(await pipe(unb64url(h.slice(FRAGMENT_KEY.length)), new DecompressionStream('deflate-raw'))));
  } catch (e) {
    throw new ShareLinkError(`the link's workbench state does not decode (${e instanceof Error ? e.message : String(e)}): was it cut short?`);
  }
  const p = parsed as Partial<Shared>;
  if (p?.v !== 1 || typeof p.kernel !== 'string' || typeof p.job !== 'string' || typeof p.path !== 'string' || (p.explore !== undefined && !isExploreSettings(p.explore))) {
    throw new ShareLinkError('the link holds no workbench state of this version (v: 1, path, kernel, job, explore settings)');
  }
  return p as Shared;
}

// --- download as a project ---------------------------------------------------------------------

function tarHeader(name: string, size: number): Uint8Array {
  const h = new Uint8Array(512);
  const put = (s: string, at: number): void => { for (let i = 0; i < s.length; i++) h[at + i] = s.charCodeAt(i); };
  put(name, 0);
  put('0000644\0', 100); put('0000000\0', 108); put('0000000\0', 116);
  put(size.toString(8).padStart(11, '0') + '\0', 124);
  put(Math.floor(Date.now() / 1000).toString(8).padStart(11, '0') + '\0', 136);
  put('        ', 148); // the checksum field counts as spaces while summing
  put('0', 156); put('ustar\0', 257); put('00', 263);
  let sum = 0;
  for (const b of h) sum += b;
  put(sum.toString(8).padStart(6, '0') + '\0 ', 148);
  return h;
}

/** A file of a project: text, or bytes (an input .npy file). */
export interface ProjectFile { name: string; data: string | Uint8Array }

/** A tar archive of files (names ASCII, under 100 characters). */
export function tar(files: ProjectFile[]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const f of files) {
    if (!/^[\x20-\x7e]{1,99}$/.test(f.name)) throw new RangeError(`tar: file name ${JSON.stringify(f.name)} is not short ASCII`);
    const body = typeof f.data === 'string' ? new TextEncoder().encode(f.data) : f.data;
    parts.push(tarHeader(f.name, body.length), body, new Uint8Array((512 - (body.length % 512)) % 512));
  }
  parts.push(new Uint8Array(1024));
  const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

/** The CLI's explore with the page's settings. */
function exploreCommand(base: string, e: ExploreSettings): string {
  return `npx simt explore --module kernels/${base}.ts --job job.js --strategy ${e.strategy} --schedules ${e.schedules}` +
    (e.strategy === 'pct' ? ` --depth ${e.depth}` : '') + (e.strategy === 'exhaustive' ? '' : ` --seed ${e.seed}`);
}

/**
 * The project's files: the kernel, the job (with the generators), the .npy files it reads
 * (beside job.js), a README with the commands.
 */
export function projectFiles(s: Omit<Shared, 'v'>, files: InputFiles = new Map()): ProjectFile[] {
  const base = s.path.replace(/\.ts$/, '').replace(/[^A-Za-z0-9_-]/g, '_') || 'kernel';
  const dir = `${base}-project`;
  const inputs = filesRead(s.job).map((name) => {
    const data = files.get(name);
    if (!data) throw new JobTextError(`the job reads file('${name}'): drop or pick that .npy file before downloading the project`);
    if (!/^[^/\\.][^/\\]*$/.test(name)) throw new JobTextError(`file('${name}'): a project keeps its input files beside job.js, so the name must be a plain file name`);
    return { name: `${dir}/${name}`, data };
  });
  return [
    { name: `${dir}/kernels/${base}.ts`, data: s.kernel },
    { name: `${dir}/job.js`, data: jobFileText(s.job) },
    ...inputs,
    { name: `${dir}/README.md`, data: `# ${base}: a kernel from the simt playground

\`\`\`sh
npm install simt
npx simt build kernels/${base}.ts -o build                       # build/${base}.simt.json, .wasm, .fine.wasm, ${base}.js
npx simt racecheck --module kernels/${base}.ts --job job.js       # compute-sanitizer's layout
${exploreCommand(base, s.explore ?? DEFAULT_EXPLORE)}
npx simt explore --module kernels/${base}.ts --job job.js --replay '<a replay string>'   # one outcome again
\`\`\`

\`job.js\` is the playground's job as it was: a job file (\`export default (module) => spec\`) with the
seeded input generators it uses; its \`reference\` field (the expected outputs) is the playground's.${inputs.length ? `
It reads ${inputs.map((f) => `\`${f.name.slice(dir.length + 1)}\``).join(', ')} (beside it) with \`file(name, shape)\`, simt's \`npyBuffer\`.` : ''}
` },
  ];
}
