// A plain-SVG bar chart: one horizontal bar per distinct outcome, length = schedules that gave it.
const SVG = 'http://www.w3.org/2000/svg';

export interface Bar { label: string; count: number; highlight: boolean; title: string }

function s<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, text?: string): SVGElementTagNameMap[K] {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

export function outcomeChart(bars: Bar[], total: number, maxBars = 40): SVGSVGElement {
  const shown = bars.slice(0, maxBars);
  const rest = bars.slice(maxBars);
  if (rest.length > 0) {
    shown.push({ label: `+${rest.length} more`, count: rest.reduce((a, b) => a + b.count, 0), highlight: true, title: `${rest.length} further outcomes` });
  }
  const rowH = 22, labelW = 70, width = 520, barW = width - labelW - 60;
  const max = Math.max(1, ...shown.map((b) => b.count));
  const height = shown.length * rowH + 44;
  const svg = s('svg', { width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', 'data-testid': 'outcome-chart', class: 'chart' });
  svg.append(s('title', {}, `${bars.length} distinct outcomes over ${total} schedules`));
  shown.forEach((b, k) => {
    const y = k * rowH + 4;
    const w = Math.max(2, (b.count / max) * barW);
    const g = s('g', { 'data-count': b.count, class: 'bar' });
    g.append(s('title', {}, b.title));
    g.append(s('text', { x: labelW - 6, y: y + 14, 'text-anchor': 'end', class: 'label' }, b.label));
    g.append(s('rect', { x: labelW, y, width: w, height: rowH - 6, rx: 3, class: b.highlight ? 'differs' : 'same' }));
    g.append(s('text', { x: labelW + w + 6, y: y + 14, class: 'count' }, String(b.count)));
    svg.append(g);
  });
  const axisY = shown.length * rowH + 12;
  svg.append(s('text', { x: labelW, y: axisY + 10, class: 'axis' }, `schedules per distinct output (${total} schedules in all)`));
  svg.append(s('text', { x: labelW, y: axisY + 24, class: 'axis' }, 'blue: as the in-order schedule · orange: differs from it'));
  return svg;
}
