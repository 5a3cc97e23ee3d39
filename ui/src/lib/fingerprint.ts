// A short fingerprint of a text, to notice that it changed (FNV-1a, 32 bits twice with two
// primes): not a security measure. Shared by sync (what was last synced, what a share link holds)
// and the flashcards (what a shared deck's card said when it was taken). Pure.

export function fingerprint(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  return `${(a >>> 0).toString(16)}${(b >>> 0).toString(16)}`;
}
