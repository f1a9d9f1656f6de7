import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { InvalidArgumentError } from '@chi/spec';

/** One file of a tarball: its path inside the archive and its bytes. */
export interface TarEntry {
  readonly path: string;
  readonly bytes: Uint8Array;
}

const BLOCK = 512;

/** The time npm writes into every packed file (1985-10-26T08:15:00Z), so packing is reproducible. */
export const NPM_PACK_MTIME_SECONDS = 499_162_500;

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

function header(path: string, size: number): Uint8Array {
  const block = new Uint8Array(BLOCK);
  const encoder = new TextEncoder();
  let name = path;
  let prefix = '';
  if (encoder.encode(path).length > 100) {
    const cut = path.lastIndexOf('/', 155);
    prefix = path.slice(0, cut);
    name = path.slice(cut + 1);
    if (cut < 0 || encoder.encode(name).length > 100 || encoder.encode(prefix).length > 155)
      throw new InvalidArgumentError('path', `too long for a ustar header: ${path}`);
  }
  const put = (text: string, offset: number) => block.set(encoder.encode(text), offset);
  put(name, 0);
  put(octal(0o644, 8), 100);
  put(octal(0, 8), 108);
  put(octal(0, 8), 116);
  put(octal(size, 12), 124);
  put(octal(NPM_PACK_MTIME_SECONDS, 12), 136);
  put('        ', 148);
  put('0', 156);
  put('ustar\u000000', 257);
  put(prefix, 345);
  const checksum = block.reduce((sum, byte) => sum + byte, 0);
  put(`${checksum.toString(8).padStart(6, '0')}\0 `, 148);
  return block;
}

/**
 * A gzipped ustar archive of `entries` in the given order, byte-reproducible: mode 0644, owner 0,
 * npm's fixed mtime, gzip level 9 with no timestamp and OS byte 255 ("unknown"), so the bytes do
 * not depend on the machine that packs them.
 */
export function packTarGzip(entries: readonly TarEntry[]): Uint8Array {
  const chunks: Uint8Array[] = [];
  for (const entry of entries) {
    chunks.push(header(entry.path, entry.bytes.length), entry.bytes);
    const padding = (BLOCK - (entry.bytes.length % BLOCK)) % BLOCK;
    if (padding > 0) chunks.push(new Uint8Array(padding));
  }
  chunks.push(new Uint8Array(2 * BLOCK));
  return new Uint8Array(gzipOnce(Buffer.concat(chunks)));
}

/**
 * Gzipped archives of this process by the SHA-256 of their uncompressed bytes, at most
 * {@link GZIPPED_KEPT} (the oldest goes first). Every release packs the code of the same `@chi/*`
 * folders again, and gzip at level 9 is most of a release's packing (about 0.5 CPU s of the
 * pilot's nine packages; hashing the same bytes costs a few ms): equal input gives equal output,
 * so the bytes are the same as gzipping again (docs/benchmarks/ci.md, "Fifth pass").
 */
const gzipped = new Map<string, Uint8Array>();
const GZIPPED_KEPT = 32;

/** `tar` gzipped at level 9 with OS byte 255, from {@link gzipped} when this process did it once. */
function gzipOnce(tar: Buffer): Uint8Array {
  const key = createHash('sha256').update(tar).digest('hex');
  const kept = gzipped.get(key);
  if (kept !== undefined) return kept;
  const bytes = gzipSync(tar, { level: 9 });
  bytes[9] = 0xff;
  if (gzipped.size >= GZIPPED_KEPT) gzipped.delete(gzipped.keys().next().value as string);
  gzipped.set(key, bytes);
  return bytes;
}

/** The files of a gzipped ustar archive (regular files only), in archive order. */
export function readTarGzip(bytes: Uint8Array): TarEntry[] {
  const tar = gunzipSync(bytes);
  const decoder = new TextDecoder();
  const text = (offset: number, length: number) =>
    decoder.decode(tar.subarray(offset, offset + length)).replace(/\0.*$/s, '');
  const entries: TarEntry[] = [];
  let offset = 0;
  while (offset + BLOCK <= tar.length) {
    const name = text(offset, 100);
    if (name === '') break;
    const prefix = text(offset + 345, 155);
    const size = Number.parseInt(text(offset + 124, 12).trim() || '0', 8);
    const type = text(offset + 156, 1);
    const start = offset + BLOCK;
    if (type === '0' || type === '')
      entries.push({
        path: prefix === '' ? name : `${prefix}/${name}`,
        bytes: new Uint8Array(tar.subarray(start, start + size)),
      });
    offset = start + Math.ceil(size / BLOCK) * BLOCK;
  }
  return entries;
}
