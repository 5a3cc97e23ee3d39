// Which recording format to ask MediaRecorder for, and the names a recording or picture is kept
// under. Pure.

/** In order of preference: Opus in WebM (Chromium, Firefox), AAC in MP4 (Safari), Ogg (older Firefox). */
export const RECORDER_TYPES = ['audio/webm;codecs=opus', 'audio/mp4', 'audio/ogg'] as const;

/** The first type the browser records, or '' to let it choose its own. */
export function chooseRecorderType(isTypeSupported: (type: string) => boolean): string {
  for (const type of RECORDER_TYPES) {
    try {
      if (isTypeSupported(type)) return type;
    } catch {
      // A browser that throws for a type does not record it.
    }
  }
  return '';
}

/** The file extension a stored file of this MIME type gets (as Anki would name it). */
export function extensionFor(type: string): string {
  const base = type.split(';')[0]?.trim().toLowerCase() ?? '';
  const known: Record<string, string> = {
    'audio/webm': 'webm',
    'audio/mp4': 'm4a',
    'audio/x-m4a': 'm4a',
    'audio/aac': 'aac',
    'audio/ogg': 'ogg',
    'audio/mpeg': 'mp3',
    'audio/mp3': 'mp3',
    'audio/wav': 'wav',
    'audio/x-wav': 'wav',
    'audio/flac': 'flac',
    'image/webp': 'webp',
    'image/jpeg': 'jpg',
    'image/png': 'png',
    'image/gif': 'gif',
  };
  return known[base] ?? (base.startsWith('audio/') ? 'audio' : 'bin');
}

/**
 * The name a file is kept under: the chosen file's own name (its extension replaced by the kept
 * format's), or `prefix-<first hash digits>` for a recording or a pasted picture.
 */
export function mediaName(hash: string, type: string, prefix: string, original?: string): string {
  const stem = original
    ?.replace(/\.[^.]*$/, '')
    // eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
    .replace(/[\\/:*?"<>|[\]\u0000-\u001f]+/g, ' ')
    .trim()
    .slice(0, 80);
  return `${stem || `${prefix}-${hash.slice(0, 10)}`}.${extensionFor(type)}`;
}
