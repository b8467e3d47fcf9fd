/** Tells images and binary files from text by their first bytes. */

/** The image MIME type announced by the file's magic bytes, if it is a PNG, JPEG, GIF or WebP. */
export function detectImageType(head: Uint8Array): string | undefined {
  const starts = (bytes: number[], at = 0) => bytes.every((byte, index) => head[at + index] === byte);
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (starts([0xff, 0xd8, 0xff])) return "image/jpeg";
  if (starts([0x47, 0x49, 0x46, 0x38]) && (head[4] === 0x37 || head[4] === 0x39) && head[5] === 0x61)
    return "image/gif";
  if (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) return "image/webp";
  return undefined;
}

/** Whether the bytes look binary: text files (UTF-8, Latin-1) never contain NUL bytes. */
export function looksBinary(head: Uint8Array): boolean {
  return head.includes(0);
}

/**
 * Why a FIFO, socket or device is refused: opening a FIFO blocks until a writer appears (a
 * thread that even `process.exit` waits for), and /dev/zero never ends.
 */
export function notRegularFile(shown: string): string {
  return `${shown} is not a regular file (a FIFO, socket or device), so it cannot be read safely; use bash with a timeout (e.g. \`timeout 5 head -c 4096 ${shown}\`) if you need it.`;
}
