// Content hashes: the compiler's cache keys and the identity of an exploration's job (its
// modules and inputs), the same in Node and browsers (WebCrypto).

/** SHA-256 of a text (as UTF-8) or of bytes: the first 32 hex digits (128 bits). */
export async function sha256Hex(data: string | Uint8Array): Promise<string> {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
  const digest = await crypto.subtle.digest('SHA-256', bytes as BufferSource);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('').slice(0, 32);
}
