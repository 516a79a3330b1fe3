// A tiny static file server for the browser tests: serves one folder on 127.0.0.1 with the
// headers that make a page cross-origin isolated (docs/browser.md). Paths under
// /no-isolation/ serve the same files without those headers (to check the page's error path).
import { createServer, type Server } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import type { AddressInfo } from 'node:net';

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm', '.json': 'application/json', '.wgsl': 'text/plain; charset=utf-8',
  '.bin': 'application/octet-stream', '.svg': 'image/svg+xml',
};

export const ISOLATION_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export interface StaticServer { url: string; requests: string[]; close(): Promise<void> }

export async function serveStatic(root: string): Promise<StaticServer> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      let path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
      requests.push(path);
      let headers: Record<string, string> = { ...ISOLATION_HEADERS };
      if (path.startsWith('/no-isolation/')) { path = path.slice('/no-isolation'.length); headers = {}; }
      if (path.endsWith('/')) path += 'index.html';
      const file = normalize(join(root, path));
      if (!file.startsWith(root + sep)) { res.writeHead(403, headers).end(); return; }
      try {
        const body = await readFile(file);
        res.writeHead(200, { ...headers, 'Content-Type': MIME[extname(file)] ?? 'application/octet-stream', 'Cache-Control': 'no-store' });
        res.end(body);
      } catch {
        res.writeHead(404, { ...headers, 'Content-Type': 'text/plain' }).end('not found');
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    requests,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
