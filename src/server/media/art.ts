/**
 * The built-in offline image engine's painter. NOT a model: it loads no weights and understands nothing. It turns
 * a prompt and a seed into a picture deterministically: a palette chosen from the prompt (colour words such as
 * 'red', 'ocean' or 'sunset' steer it), a sky-to-ground gradient, and soft glowing shapes whose places, sizes and
 * colours come from a PRNG seeded by the prompt's hash and the seed. The same prompt and seed always give the same
 * pixels. Time `t` (seconds) moves the shapes along their orbits: the offline video engine paints frames with it.
 */

/** 32-bit FNV-1a of a string's UTF-16 units. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** mulberry32: a small, fast, well-distributed PRNG. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rgb = [number, number, number];

/** Colour words and the hues they bring (degrees). */
const HUES: Record<string, number> = {
  red: 0, fire: 10, sunset: 20, orange: 30, autumn: 28, gold: 45, yellow: 55, sun: 50, desert: 38, lime: 90,
  green: 120, forest: 130, jungle: 115, teal: 175, cyan: 185, ocean: 200, sea: 205, sky: 210, blue: 225, ice: 195,
  night: 235, indigo: 250, purple: 275, violet: 280, magenta: 300, pink: 330, rose: 345, cherry: 350,
};

function hsl(h: number, s: number, l: number): Rgb {
  const k = (n: number) => (n + h / 30) % 12;
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => l - a * Math.max(-1, Math.min(k(n) - 3, Math.min(9 - k(n), 1)));
  return [f(0) * 255, f(8) * 255, f(4) * 255];
}

export interface ArtScene {
  top: Rgb;
  bottom: Rgb;
  blobs: { x: number; y: number; r: number; color: Rgb; orbit: number; speed: number; phase: number }[];
  /** The prompt mentions night or dark: a darker scene with stars. */
  dark: boolean;
}

/** The scene of a prompt and seed (everything random is decided here, once). */
export function sceneOf(prompt: string, seed: number): ArtScene {
  const words = prompt.toLowerCase().match(/[a-z]+/g) ?? [];
  const hues = words.map((w) => HUES[w]).filter((h): h is number => h !== undefined);
  const rand = prng(hash32(prompt) ^ Math.imul(seed >>> 0, 0x9e3779b1));
  const base = hues[0] ?? rand() * 360;
  const dark = words.some((w) => w === 'night' || w === 'dark' || w === 'space' || w === 'midnight');
  const accent = hues[1] ?? (base + 150 + rand() * 60) % 360;
  const top = hsl(base, 0.55, dark ? 0.12 : 0.62);
  const bottom = hsl((base + 30) % 360, 0.6, dark ? 0.04 : 0.28);
  const count = 5 + Math.floor(rand() * 4);
  const blobs = Array.from({ length: count }, (_, i) => {
    const hue = i % 2 === 0 ? accent + rand() * 40 - 20 : base + rand() * 60 - 30;
    return {
      x: 0.1 + rand() * 0.8,
      y: 0.15 + rand() * 0.75,
      r: 0.08 + rand() * 0.22,
      color: hsl((hue + 360) % 360, 0.75, dark ? 0.55 : 0.6),
      orbit: 0.02 + rand() * 0.08,
      speed: 0.3 + rand() * 0.9,
      phase: rand() * Math.PI * 2,
    };
  });
  return { top, bottom, blobs, dark };
}

/**
 * Paints the scene at time t into RGB bytes (width x height x 3). Linear in pixels x shapes; no allocation per
 * pixel.
 */
export function paint(scene: ArtScene, width: number, height: number, t = 0, out = new Uint8Array(width * height * 3)): Uint8Array {
  const blobs = scene.blobs.map((b) => {
    const radius = b.r * Math.min(width, height);
    return {
      cx: (b.x + Math.cos(b.phase + t * b.speed) * b.orbit) * width,
      cy: (b.y + Math.sin(b.phase + t * b.speed) * b.orbit) * height,
      inv: 1 / radius ** 2,
      // A shape's glow ends where (distance / radius)^2 reaches 4: outside it no pixel is touched.
      reach: radius * 2,
      color: b.color,
    };
  });
  const active: typeof blobs = [];
  let o = 0;
  for (let y = 0; y < height; y++) {
    const v = y / Math.max(1, height - 1);
    const br = scene.top[0] + (scene.bottom[0] - scene.top[0]) * v;
    const bg = scene.top[1] + (scene.bottom[1] - scene.top[1]) * v;
    const bb = scene.top[2] + (scene.bottom[2] - scene.top[2]) * v;
    // Only the shapes whose glow reaches this row are looked at (a CPU profile showed most pairs were misses).
    active.length = 0;
    for (const s of blobs) if (Math.abs(y - s.cy) < s.reach) active.push(s);
    for (let x = 0; x < width; x++) {
      let r = br;
      let g = bg;
      let b = bb;
      for (let i = 0; i < active.length; i++) {
        const s = active[i] as (typeof blobs)[number];
        const dx = x - s.cx;
        if (dx > s.reach || dx < -s.reach) continue;
        const dy = y - s.cy;
        const d = (dx * dx + dy * dy) * s.inv;
        if (d < 4) {
          const w = Math.exp(-d * 1.6) * 0.85;
          r += (s.color[0] - r) * w;
          g += (s.color[1] - g) * w;
          b += (s.color[2] - b) * w;
        }
      }
      if (scene.dark && (x * 7919 + y * 104729) % 2003 === 0) r = g = b = 240;
      out[o++] = r;
      out[o++] = g;
      out[o++] = b;
    }
  }
  return out;
}
