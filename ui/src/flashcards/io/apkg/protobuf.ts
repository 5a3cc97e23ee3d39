// Just enough of the protobuf wire format to read the few settings Anki keeps in protobuf blobs
// (a note type's kind, a template's question, a deck's options, the media list). Pure.

/** A field's values by number: varints as numbers, length-delimited ones as bytes. */
export type Message = Map<number, (number | Uint8Array)[]>;

export function readMessage(bytes: Uint8Array): Message {
  const fields: Message = new Map();
  let at = 0;
  const varint = (): number => {
    let value = 0;
    let scale = 1;
    for (;;) {
      if (at >= bytes.length) throw new Error('truncated protobuf');
      const byte = bytes[at++] as number;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 128;
      if (scale > 2 ** 63) throw new Error('bad protobuf varint');
    }
  };
  while (at < bytes.length) {
    const key = varint();
    const field = Math.floor(key / 8);
    const wire = key % 8;
    let value: number | Uint8Array;
    if (wire === 0) value = varint();
    else if (wire === 2) {
      const length = varint();
      if (at + length > bytes.length) throw new Error('truncated protobuf');
      value = bytes.subarray(at, at + length);
      at += length;
    } else if (wire === 1) {
      at += 8;
      continue;
    } else if (wire === 5) {
      at += 4;
      continue;
    } else throw new Error('unsupported protobuf wire type');
    const list = fields.get(field);
    if (list) list.push(value);
    else fields.set(field, [value]);
  }
  return fields;
}

const decoder = new TextDecoder();

export function numberField(message: Message, field: number, fallback: number): number {
  const value = message.get(field)?.[0];
  return typeof value === 'number' ? value : fallback;
}

export function bytesField(message: Message, field: number): Uint8Array | null {
  const value = message.get(field)?.[0];
  return value instanceof Uint8Array ? value : null;
}

export function stringField(message: Message, field: number): string {
  const value = bytesField(message, field);
  return value ? decoder.decode(value) : '';
}

export function repeatedBytes(message: Message, field: number): Uint8Array[] {
  return (message.get(field) ?? []).filter((value): value is Uint8Array => value instanceof Uint8Array);
}
