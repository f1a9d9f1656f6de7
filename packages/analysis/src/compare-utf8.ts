/** Byte-wise (UTF-8) order, like `LC_ALL=C sort`, so the file is identical on every platform. */
export function compareUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
