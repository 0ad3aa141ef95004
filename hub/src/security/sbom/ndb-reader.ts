/**
 * A read-only reader of rpm's own "NDB" package database (`Packages.db`, rpm ≥ 4.16 with
 * `_db_backend ndb`: openSUSE and SLES 15), after rpm's lib/backend/ndb/rpmpkg.c. Little-endian
 * throughout: a 32-byte header (magic `RpmP`, version 0, generation, slot page count) at the start of
 * the slot pages (4 KiB each, 16-byte slots `Slot`, package index, block offset, block count), then
 * the blobs in 16-byte blocks: a head (`BlbS`, package index, timestamp, length), the header blob, and
 * a tail (Adler-32 of head, blob and padding, length, `BlbE`).
 *
 * Checked as rpm checks them when it reads: every slot's magic, its blocks inside the file and after
 * the slot pages, the block count matching the blob's length, the head and tail, the checksum; and,
 * as rpm refuses when it writes, no two blobs overlap, so the whole read touches each byte once.
 */

export class NdbFormatError extends Error {
  constructor(message: string) {
    super(`ndb: ${message}`);
    this.name = 'NdbFormatError';
  }
}

const PAGE_SIZE = 4096;
const SLOT_SIZE = 16;
const BLOCK_SIZE = 16;
const HEADER_SIZE = 32;
const HEAD_SIZE = 16;
const TAIL_SIZE = 12;
const fourCC = (text: string) => [...text].reduce((value, char, index) => value + char.charCodeAt(0) * 256 ** index, 0);
const DB_MAGIC = fourCC('RpmP');
const SLOT_MAGIC = fourCC('Slot');
const HEAD_MAGIC = fourCC('BlbS');
const TAIL_MAGIC = fourCC('BlbE');

/** RFC 1950's Adler-32, as rpmpkg.c computes it over a blob's head, body and padding. */
function adler32(bytes: Uint8Array): number {
  let s1 = 1;
  let s2 = 0;
  for (let start = 0; start < bytes.length; start += 5552) {
    const end = Math.min(bytes.length, start + 5552);
    for (let index = start; index < end; index++) {
      s1 += bytes[index] ?? 0;
      s2 += s1;
    }
    s1 %= 65521;
    s2 %= 65521;
  }
  return (s2 * 65536 + s1) >>> 0;
}

interface Slot {
  pkgidx: number;
  blkoff: number;
  blkcnt: number;
}

export function* readNdb(bytes: Uint8Array, maxBlobBytes: number): Generator<{ pkgidx: number; blob: Uint8Array }> {
  if (bytes.length < PAGE_SIZE) throw new NdbFormatError(`${bytes.length} bytes, less than a slot page`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const u32 = (at: number) => view.getUint32(at, true);
  if (u32(0) !== DB_MAGIC) throw new NdbFormatError('not an rpm NDB database (no magic)');
  if (u32(4) !== 0) throw new NdbFormatError(`version ${u32(4)}`);
  const slotPages = u32(12);
  if (slotPages === 0 || slotPages > Math.floor(bytes.length / PAGE_SIZE)) {
    throw new NdbFormatError(`${slotPages} slot pages in a file of ${bytes.length} bytes`);
  }
  if (bytes.length % BLOCK_SIZE !== 0) throw new NdbFormatError(`${bytes.length} bytes, not whole blocks`);
  const fileBlocks = bytes.length / BLOCK_SIZE;
  const firstBlock = (slotPages * PAGE_SIZE) / BLOCK_SIZE;
  const slots: Slot[] = [];
  for (let at = HEADER_SIZE; at < slotPages * PAGE_SIZE; at += SLOT_SIZE) {
    if (u32(at) !== SLOT_MAGIC) throw new NdbFormatError(`slot at ${at}: no magic`);
    const blkoff = u32(at + 8);
    if (blkoff === 0) continue; // a free slot
    const slot = { pkgidx: u32(at + 4), blkoff, blkcnt: u32(at + 12) };
    if (slot.blkoff + slot.blkcnt > fileBlocks) throw new NdbFormatError(`slot at ${at}: blocks past the file's end`);
    if (slot.pkgidx === 0 || slot.blkcnt === 0 || slot.blkoff < firstBlock) {
      throw new NdbFormatError(`slot at ${at}: package ${slot.pkgidx}, blocks ${slot.blkoff}+${slot.blkcnt}`);
    }
    slots.push(slot);
  }
  slots.sort((a, b) => a.blkoff - b.blkoff);
  for (let index = 1; index < slots.length; index++) {
    const previous = slots[index - 1] as Slot;
    if (previous.blkoff + previous.blkcnt > (slots[index] as Slot).blkoff) {
      throw new NdbFormatError(`the blobs of packages ${previous.pkgidx} and ${slots[index]?.pkgidx} overlap`);
    }
  }
  for (const slot of slots) yield { pkgidx: slot.pkgidx, blob: readBlob(bytes, view, slot, maxBlobBytes) };
}

function readBlob(bytes: Uint8Array, view: DataView, slot: Slot, maxBlobBytes: number): Uint8Array {
  const start = slot.blkoff * BLOCK_SIZE;
  const end = start + slot.blkcnt * BLOCK_SIZE;
  const where = `package ${slot.pkgidx}`;
  if (slot.blkcnt * BLOCK_SIZE < HEAD_SIZE + TAIL_SIZE) throw new NdbFormatError(`${where}: ${slot.blkcnt} blocks`);
  if (view.getUint32(start, true) !== HEAD_MAGIC || view.getUint32(start + 4, true) !== slot.pkgidx) {
    throw new NdbFormatError(`${where}: no blob head`);
  }
  const length = view.getUint32(start + 12, true);
  if (length > maxBlobBytes)
    throw new NdbFormatError(`${where}: a blob of ${length} bytes, more than the ${maxBlobBytes} read`);
  if (slot.blkcnt !== Math.ceil((HEAD_SIZE + length + TAIL_SIZE) / BLOCK_SIZE)) {
    throw new NdbFormatError(`${where}: ${slot.blkcnt} blocks for a blob of ${length} bytes`);
  }
  const tail = end - TAIL_SIZE;
  if (view.getUint32(tail + 4, true) !== length || view.getUint32(tail + 8, true) !== TAIL_MAGIC) {
    throw new NdbFormatError(`${where}: no blob tail`);
  }
  if (view.getUint32(tail, true) !== adler32(bytes.subarray(start, tail))) {
    throw new NdbFormatError(`${where}: checksum mismatch`);
  }
  return bytes.subarray(start + HEAD_SIZE, start + HEAD_SIZE + length);
}
