import { Resvg } from '@resvg/resvg-js';

export interface Sample {
  /** Seconds since the load started, at the end of the interval. */
  at: number;
  /** Requests per second per route over the interval. */
  rate: Record<string, number>;
  /** p99 latency (ms) per route over the interval. */
  p99: Record<string, number>;
  /** p50 latency (ms) per route over the interval. */
  p50: Record<string, number>;
  /** Delivery lag (ms), event creation to arrival, over the interval. */
  lagP50: number;
  lagP99: number;
  rssMb: number;
  loopDelayP99: number;
  receiver: string;
}

interface Series {
  name: string;
  points: [number, number][];
}

const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b'];
const WIDTH = 1000;
const PANEL_H = 220;

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** One panel: axes, a few ticks, a line per series, a legend; y from 0 to the largest value. */
function panel(title: string, unit: string, series: readonly Series[], top: number, maxX: number): string {
  const left = 70;
  const right = WIDTH - 180;
  const plotTop = top + 30;
  const plotBottom = top + PANEL_H - 30;
  const maxY = Math.max(1, ...series.flatMap((s) => s.points.map(([, y]) => y))) * 1.1;
  const x = (value: number) => left + ((right - left) * value) / Math.max(1, maxX);
  const y = (value: number) => plotBottom - ((plotBottom - plotTop) * value) / maxY;
  const parts = [
    `<text x="${left}" y="${top + 18}" font-size="15" font-weight="bold">${escapeXml(title)}</text>`,
    `<line x1="${left}" y1="${plotBottom}" x2="${right}" y2="${plotBottom}" stroke="#333"/>`,
    `<line x1="${left}" y1="${plotTop}" x2="${left}" y2="${plotBottom}" stroke="#333"/>`,
  ];
  for (let i = 0; i <= 4; i++) {
    const value = (maxY * i) / 4;
    parts.push(
      `<line x1="${left}" y1="${y(value)}" x2="${right}" y2="${y(value)}" stroke="#ddd"/>`,
      `<text x="${left - 6}" y="${y(value) + 4}" font-size="11" text-anchor="end">${value < 10 ? value.toFixed(1) : Math.round(value)}</text>`,
    );
  }
  for (let i = 0; i <= 5; i++) {
    const value = (maxX * i) / 5;
    parts.push(
      `<text x="${x(value)}" y="${plotBottom + 15}" font-size="11" text-anchor="middle">${Math.round(value)} s</text>`,
    );
  }
  parts.push(
    `<text x="14" y="${(plotTop + plotBottom) / 2}" font-size="11" transform="rotate(-90 14 ${(plotTop + plotBottom) / 2})" text-anchor="middle">${escapeXml(unit)}</text>`,
  );
  series.forEach((s, i) => {
    const colour = COLOURS[i % COLOURS.length]!;
    const path = s.points.map(([px, py]) => `${x(px).toFixed(1)},${y(py).toFixed(1)}`).join(' ');
    parts.push(`<polyline fill="none" stroke="${colour}" stroke-width="2" points="${path}"/>`);
    for (const [px, py] of s.points) {
      parts.push(`<circle cx="${x(px).toFixed(1)}" cy="${y(py).toFixed(1)}" r="2.5" fill="${colour}"/>`);
    }
    parts.push(
      `<rect x="${right + 15}" y="${plotTop + i * 18}" width="12" height="3" fill="${colour}"/>`,
      `<text x="${right + 32}" y="${plotTop + i * 18 + 5}" font-size="11">${escapeXml(s.name)}</text>`,
    );
  });
  return parts.join('\n');
}

/** The soak's chart as SVG: throughput, p50 and p99 per route, delivery lag, RSS and event-loop delay over time. */
export function soakSvg(title: string, samples: readonly Sample[]): string {
  const maxX = Math.max(1, ...samples.map((s) => s.at));
  const routes = Object.keys(samples[0]?.rate ?? {});
  const perRoute = (pick: (s: Sample) => Record<string, number>): Series[] =>
    routes.map((route) => ({ name: route, points: samples.map((s) => [s.at, pick(s)[route] ?? 0]) }));
  const panels = [
    panel(
      'Throughput per route',
      'requests/s',
      perRoute((s) => s.rate),
      40,
      maxX,
    ),
    panel(
      'p50 latency per route',
      'ms',
      perRoute((s) => s.p50),
      40 + PANEL_H,
      maxX,
    ),
    panel(
      'p99 latency per route',
      'ms',
      perRoute((s) => s.p99),
      40 + 2 * PANEL_H,
      maxX,
    ),
    panel(
      'Delivery lag (event created to arrival)',
      'ms',
      [
        { name: 'p50', points: samples.map((s) => [s.at, s.lagP50]) },
        { name: 'p99', points: samples.map((s) => [s.at, s.lagP99]) },
      ],
      40 + 3 * PANEL_H,
      maxX,
    ),
    panel(
      'Service process',
      'MB / ms',
      [
        { name: 'RSS (MB)', points: samples.map((s) => [s.at, s.rssMb]) },
        { name: 'event-loop delay p99 (ms)', points: samples.map((s) => [s.at, s.loopDelayP99]) },
      ],
      40 + 4 * PANEL_H,
      maxX,
    ),
  ];
  const height = 60 + 5 * PANEL_H;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" font-family="DejaVu Sans, sans-serif">
<rect width="100%" height="100%" fill="#fff"/>
<text x="${WIDTH / 2}" y="24" font-size="17" text-anchor="middle" font-weight="bold">${escapeXml(title)}</text>
${panels.join('\n')}
</svg>`;
}

/** Rasterised here, with the machine's own fonts: no remote assets. */
export function svgToPng(svg: string): Buffer {
  const resvg = new Resvg(svg, {
    background: '#ffffff',
    font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' },
  });
  return resvg.render().asPng();
}
