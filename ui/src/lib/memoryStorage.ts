// A Map-backed Storage for unit tests of the storage modules; `quota` (characters of keys plus
// values) makes writes fail the way a full browser store does.
export class MemoryStorage implements Storage {
  readonly data = new Map<string, string>();
  constructor(private readonly quota = Number.POSITIVE_INFINITY) {}
  get length() {
    return this.data.size;
  }
  clear() {
    this.data.clear();
  }
  getItem(key: string) {
    return this.data.get(key) ?? null;
  }
  key(index: number) {
    return [...this.data.keys()][index] ?? null;
  }
  removeItem(key: string) {
    this.data.delete(key);
  }
  setItem(key: string, value: string) {
    let used = key.length + value.length;
    for (const [k, v] of this.data) if (k !== key) used += k.length + v.length;
    if (used > this.quota) throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
    this.data.set(key, value);
  }
}
