/**
 * A file's text as ripgrep decodes it for searching: a UTF-8 BOM dropped, UTF-16 with a BOM
 * transcoded, anything else UTF-8; undefined for a UTF-8 file with a NUL (binary). Its source also
 * runs in the worker, so it uses nothing from outside itself.
 */
export function decodeForSearch(buf: Buffer): string | undefined {
  if (buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) return new TextDecoder('utf-8', { ignoreBOM: true }).decode(buf.subarray(3));
  if (buf.length >= 2 && buf[0] === 0xff && buf[1] === 0xfe) return new TextDecoder('utf-16le', { ignoreBOM: true }).decode(buf.subarray(2));
  if (buf.length >= 2 && buf[0] === 0xfe && buf[1] === 0xff) {
    const body = buf.subarray(2);
    const even = body.length - (body.length % 2);
    const swapped = Buffer.from(body.subarray(0, even));
    swapped.swap16();
    return new TextDecoder('utf-16le', { ignoreBOM: true }).decode(swapped) + (even < body.length ? '\uFFFD' : '');
  }
  if (buf.indexOf(0) !== -1) return undefined;
  return buf.toString('utf8');
}
