// Small DOM helpers shared by the panels: element creation, progress, error display.

export function $(id: string): HTMLElement {
  const e = document.getElementById(id);
  if (!e) throw new Error(`the page has no #${id}`);
  return e;
}

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K, attrs: Record<string, string | number | boolean | undefined> = {}, ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (k === 'class') e.className = String(v);
    else if (k === 'text') e.textContent = String(v);
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) e.append(c);
  return e;
}

/** Lets the browser paint (progress bars) before the next piece of main-thread work. */
export function nextFrame(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

export class Progress {
  private lastPaint = 0;
  constructor(private readonly bar: HTMLProgressElement, private readonly label: HTMLElement) {}

  /** Shows `text` and a fraction; yields to the browser at most every 50 ms so it can repaint. */
  async set(text: string, fraction?: number): Promise<void> {
    this.label.textContent = text;
    if (fraction === undefined) this.bar.removeAttribute('value');
    else this.bar.value = Math.max(0, Math.min(1, fraction));
    const now = performance.now();
    if (now - this.lastPaint > 50) {
      this.lastPaint = now;
      await nextFrame();
    }
  }

  done(text: string): void {
    this.label.textContent = text;
    this.bar.value = 1;
  }
}

/** Records an error in the page's error list (and the panel's status), never swallowing it. */
export function showError(where: string, e: unknown): void {
  const err = e instanceof Error ? e : new Error(String(e));
  console.error(`[${where}]`, err);
  const section = $('errors');
  section.hidden = false;
  const item = el('li', { 'data-testid': 'error' },
    el('strong', { text: `${where}: ` }), `${err.name}: ${err.message}`);
  if (err.stack) item.append(el('details', {}, el('summary', { text: 'stack' }), el('pre', { text: err.stack })));
  $('error-list').append(item);
}

export function fmtMs(ms: number): string {
  return ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : ms < 1000 ? `${ms.toFixed(2)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

export function fmtRate(bytes: number, ms: number): string {
  if (!(ms > 0)) return '—';
  return `${(bytes / ms / 1e6).toFixed(2)} GB/s`;
}
