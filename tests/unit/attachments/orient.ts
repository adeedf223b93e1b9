import type { OrientedCanvas } from '../../../src/worker/rooms/library/attachments/image-sniff';

/** Where the canvas matrix puts a point of the stored image. */
export function orient(t: OrientedCanvas, [x, y]: [number, number]): [number, number] {
  const [a, b, c, d, e, f] = t.matrix;
  return [a * x + c * y + e, b * x + d * y + f].map((v) => v + 0) as [number, number];
}
