/**
 * The offline video engine's encoder: H.264 (Constrained Baseline) where every macroblock is I_PCM, muxed into
 * MP4 with mp4-muxer. I_PCM carries raw YUV 4:2:0 samples, so there is no transform or entropy coder to get
 * wrong: only the parameter sets, a slice header per frame and start-code emulation prevention. Written by hand
 * because no pure-JS H.264 or VP8 encoder is well kept on npm and native ffmpeg is not allowed. Files are large
 * (1.5 bytes a pixel a frame), which is why the offline clip is small and short.
 */
import { ArrayBufferTarget, Muxer } from 'mp4-muxer';

class BitWriter {
  private bytes: number[] = [];
  private cur = 0;
  private n = 0;

  u(bits: number, value: number): void {
    for (let i = bits - 1; i >= 0; i--) this.bit((value >>> i) & 1);
  }
  bit(b: number): void {
    this.cur = (this.cur << 1) | b;
    if (++this.n === 8) this.flushByte();
  }
  private flushByte(): void {
    this.bytes.push(this.cur & 0xff);
    this.cur = 0;
    this.n = 0;
  }
  /** Unsigned Exp-Golomb. */
  ue(value: number): void {
    const v = value + 1;
    const len = 32 - Math.clz32(v);
    this.u(len - 1, 0);
    this.u(len, v);
  }
  /** Signed Exp-Golomb. */
  se(value: number): void {
    this.ue(value <= 0 ? -2 * value : 2 * value - 1);
  }
  get aligned(): boolean {
    return this.n === 0;
  }
  alignZero(): void {
    while (this.n !== 0) this.bit(0);
  }
  /** Whole bytes, only when aligned (PCM samples). */
  raw(data: Uint8Array): void {
    for (const b of data) this.bytes.push(b);
  }
  /** rbsp_trailing_bits, then the bytes. */
  finish(): Uint8Array {
    this.bit(1);
    this.alignZero();
    return Uint8Array.from(this.bytes);
  }
}

/** A NAL unit: header byte, then the payload with emulation prevention (00 00 0x -> 00 00 03 0x for x <= 3). */
function nal(refIdc: number, type: number, rbsp: Uint8Array): Uint8Array {
  const out = new Uint8Array(rbsp.length + Math.ceil(rbsp.length / 2) + 1);
  let o = 0;
  out[o++] = (refIdc << 5) | type;
  let zeros = 0;
  for (const b of rbsp) {
    if (zeros >= 2 && b <= 3) {
      out[o++] = 3;
      zeros = 0;
    }
    out[o++] = b;
    zeros = b === 0 ? zeros + 1 : 0;
  }
  return out.subarray(0, o);
}

const PROFILE = 66; // Baseline
const CONSTRAINTS = 0xc0; // constraint_set0 and set1: Constrained Baseline
const LEVEL = 40;
export const AVC_CODEC = 'avc1.42c028';

function sps(mbWidth: number, mbHeight: number): Uint8Array {
  const w = new BitWriter();
  w.u(8, PROFILE);
  w.u(8, CONSTRAINTS);
  w.u(8, LEVEL);
  w.ue(0); // seq_parameter_set_id
  w.ue(0); // log2_max_frame_num_minus4
  w.ue(2); // pic_order_cnt_type: output order = decoding order
  w.ue(1); // max_num_ref_frames
  w.u(1, 0); // gaps_in_frame_num_value_allowed_flag
  w.ue(mbWidth - 1);
  w.ue(mbHeight - 1);
  w.u(1, 1); // frame_mbs_only_flag
  w.u(1, 1); // direct_8x8_inference_flag
  w.u(1, 0); // frame_cropping_flag
  w.u(1, 0); // vui_parameters_present_flag
  return nal(3, 7, w.finish());
}

function pps(): Uint8Array {
  const w = new BitWriter();
  w.ue(0); // pic_parameter_set_id
  w.ue(0); // seq_parameter_set_id
  w.u(1, 0); // entropy_coding_mode_flag: CAVLC
  w.u(1, 0); // bottom_field_pic_order_in_frame_present_flag
  w.ue(0); // num_slice_groups_minus1
  w.ue(0); // num_ref_idx_l0_default_active_minus1
  w.ue(0); // num_ref_idx_l1_default_active_minus1
  w.u(1, 0); // weighted_pred_flag
  w.u(2, 0); // weighted_bipred_idc
  w.se(0); // pic_init_qp_minus26
  w.se(0); // pic_init_qs_minus26
  w.se(0); // chroma_qp_index_offset
  w.u(1, 1); // deblocking_filter_control_present_flag
  w.u(1, 0); // constrained_intra_pred_flag
  w.u(1, 0); // redundant_pic_cnt_present_flag
  return nal(3, 8, w.finish());
}

/** One IDR frame of I_PCM macroblocks from planar YUV 4:2:0. */
function idrSlice(y: Uint8Array, u: Uint8Array, v: Uint8Array, width: number, mbWidth: number, mbHeight: number, idrPicId: number): Uint8Array {
  const w = new BitWriter();
  w.ue(0); // first_mb_in_slice
  w.ue(7); // slice_type: I (all slices)
  w.ue(0); // pic_parameter_set_id
  w.u(4, 0); // frame_num
  w.ue(idrPicId);
  w.u(1, 0); // no_output_of_prior_pics_flag
  w.u(1, 0); // long_term_reference_flag
  w.se(0); // slice_qp_delta
  w.ue(1); // disable_deblocking_filter_idc: off
  const mbY = new Uint8Array(256);
  const mbU = new Uint8Array(64);
  const mbV = new Uint8Array(64);
  const cw = width / 2;
  for (let my = 0; my < mbHeight; my++) {
    for (let mx = 0; mx < mbWidth; mx++) {
      w.ue(25); // mb_type: I_PCM
      w.alignZero(); // pcm_alignment_zero_bit
      for (let r = 0; r < 16; r++) mbY.set(y.subarray((my * 16 + r) * width + mx * 16, (my * 16 + r) * width + mx * 16 + 16), r * 16);
      for (let r = 0; r < 8; r++) {
        const at = (my * 8 + r) * cw + mx * 8;
        mbU.set(u.subarray(at, at + 8), r * 8);
        mbV.set(v.subarray(at, at + 8), r * 8);
      }
      w.raw(mbY);
      w.raw(mbU);
      w.raw(mbV);
    }
  }
  return nal(3, 5, w.finish());
}

/** RGB (width x height x 3) to planar YUV 4:2:0, BT.601 limited range; samples kept in 1..254. */
export function rgbToYuv420(rgb: Uint8Array, width: number, height: number): { y: Uint8Array; u: Uint8Array; v: Uint8Array } {
  const y = new Uint8Array(width * height);
  const u = new Uint8Array((width / 2) * (height / 2));
  const v = new Uint8Array((width / 2) * (height / 2));
  for (let i = 0, p = 0; i < width * height; i++, p += 3) {
    const r = rgb[p] as number;
    const g = rgb[p + 1] as number;
    const b = rgb[p + 2] as number;
    y[i] = Math.min(235, Math.max(16, Math.round(16 + 0.2568 * r + 0.5041 * g + 0.0979 * b)));
  }
  for (let cy = 0; cy < height / 2; cy++) {
    for (let cx = 0; cx < width / 2; cx++) {
      let r = 0;
      let g = 0;
      let b = 0;
      for (const [dx, dy] of [[0, 0], [1, 0], [0, 1], [1, 1]] as const) {
        const p = ((cy * 2 + dy) * width + cx * 2 + dx) * 3;
        r += rgb[p] as number;
        g += rgb[p + 1] as number;
        b += rgb[p + 2] as number;
      }
      r /= 4;
      g /= 4;
      b /= 4;
      const i = cy * (width / 2) + cx;
      u[i] = Math.min(240, Math.max(16, Math.round(128 - 0.1482 * r - 0.291 * g + 0.4392 * b)));
      v[i] = Math.min(240, Math.max(16, Math.round(128 + 0.4392 * r - 0.3678 * g - 0.0714 * b)));
    }
  }
  return { y, u, v };
}

function lengthPrefixed(unit: Uint8Array): Uint8Array {
  const out = new Uint8Array(unit.length + 4);
  new DataView(out.buffer).setUint32(0, unit.length);
  out.set(unit, 4);
  return out;
}

/** The avcC decoder configuration record (ISO/IEC 14496-15). */
function avcC(spsUnit: Uint8Array, ppsUnit: Uint8Array): Uint8Array {
  const out = new Uint8Array(11 + spsUnit.length + ppsUnit.length);
  out.set([1, PROFILE, CONSTRAINTS, LEVEL, 0xff, 0xe1, spsUnit.length >> 8, spsUnit.length & 0xff]);
  out.set(spsUnit, 8);
  const at = 8 + spsUnit.length;
  out.set([1, ppsUnit.length >> 8, ppsUnit.length & 0xff], at);
  out.set(ppsUnit, at + 3);
  return out;
}

/**
 * Encodes frames (each RGB, width x height x 3; both sizes multiples of 16) as an MP4 file at `fps`.
 * `frame(i)` paints frame i on demand, so only one frame is in memory at a time besides the output.
 */
export function encodeMp4(width: number, height: number, fps: number, count: number, frame: (i: number) => Uint8Array): Uint8Array {
  if (width % 16 !== 0 || height % 16 !== 0) throw new RangeError('width and height must be multiples of 16');
  const mbWidth = width / 16;
  const mbHeight = height / 16;
  const spsUnit = sps(mbWidth, mbHeight);
  const ppsUnit = pps();
  const muxer = new Muxer({ target: new ArrayBufferTarget(), video: { codec: 'avc', width, height, frameRate: fps }, fastStart: 'in-memory' });
  const durationUs = Math.round(1_000_000 / fps);
  for (let i = 0; i < count; i++) {
    const { y, u, v } = rgbToYuv420(frame(i), width, height);
    const slice = idrSlice(y, u, v, width, mbWidth, mbHeight, i % 2);
    const units = i === 0 ? [spsUnit, ppsUnit, slice] : [slice];
    const sample = concat(units.map(lengthPrefixed));
    const meta = i === 0 ? { decoderConfig: { codec: AVC_CODEC, codedWidth: width, codedHeight: height, description: avcC(spsUnit, ppsUnit) } } : undefined;
    muxer.addVideoChunkRaw(sample, 'key', i * durationUs, durationUs, meta as Parameters<typeof muxer.addVideoChunkRaw>[4]);
  }
  muxer.finalize();
  return new Uint8Array(muxer.target.buffer);
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
