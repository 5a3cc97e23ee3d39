// Building blocks for the schemas of stored and fetched shapes (valibot): one schema per shape gives
// both its type and its parser. Reads are lenient the way the app has always read them: a field of
// the wrong type becomes its default, and bad entries of a list are dropped.
import * as v from 'valibot';
import { isRecord } from './json';

export { isRecord };

/** A JSON object (not a list) with these entries; keys not listed are dropped. */
export const record = <const E extends v.ObjectEntries>(entries: E) => v.pipe(v.custom<Record<string, unknown>>(isRecord), v.object(entries));

/** Text, or '' for anything else (missing included). */
export const text = v.fallback(v.string(), '');

/** A finite number, or 0. */
export const count = v.fallback(v.pipe(v.number(), v.finite()), 0);

/** A boolean, or `fallback`. */
export const flag = (fallback: boolean) => v.fallback(v.boolean(), fallback);

/** Text with something besides white space in it. */
export const filled = v.pipe(
  v.string(),
  v.check((value) => value.trim() !== ''),
);

/** Text that is not empty. */
export const nonEmpty = v.pipe(v.string(), v.nonEmpty());

/** `schema`'s value, or null for anything else (missing included). */
export const orNull = <T extends v.GenericSchema>(schema: T) => v.fallback(v.nullable(schema), null);

/** Words from the server, trimmed; null when missing, blank or not text. */
export const words = orNull(
  v.pipe(
    filled,
    v.transform((text) => text.trim()),
  ),
);

/** A list keeping only the items `item` accepts, or an empty list for anything but a list. */
export const listOf = <T extends v.GenericSchema>(item: T) =>
  v.fallback(
    v.pipe(
      v.array(v.unknown()),
      v.transform((items) =>
        items.flatMap((value): v.InferOutput<T>[] => {
          const result = v.safeParse(item, value);
          return result.success ? [result.output] : [];
        }),
      ),
    ),
    () => [],
  );

/** An object's entries that `item` accepts; the others, and anything but an object, are dropped. */
export const entriesOf = <T extends v.GenericSchema>(item: T) =>
  v.fallback(
    v.pipe(
      v.custom<Record<string, unknown>>(isRecord),
      v.transform((value) =>
        Object.fromEntries(
          Object.entries(value).flatMap(([key, entry]): [string, v.InferOutput<T>][] => {
            const result = v.safeParse(item, entry);
            return result.success ? [[key, result.output]] : [];
          }),
        ),
      ),
    ),
    () => ({}),
  );

/** An object's text values; the other values, and anything but an object, are dropped. */
export const textsOf = v.fallback(
  v.pipe(
    v.custom<Record<string, unknown>>(isRecord),
    v.transform((value) => Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'))),
  ),
  () => ({}),
);

/** `schema`'s output for `value`, or null when it does not have the shape. */
export function parseOrNull<T extends v.GenericSchema>(schema: T, value: unknown): v.InferOutput<T> | null {
  const result = v.safeParse(schema, value);
  return result.success ? result.output : null;
}
