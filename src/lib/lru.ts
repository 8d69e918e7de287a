/** A bounded cache that drops the least recently used entry; a Map's insertion order is the recency order. */
export class Lru<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly capacity: number) {}

  /** The value for `key`, made by `make` when absent; either way the entry becomes the most recent. */
  get(key: K, make: (key: K) => V): V {
    let value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key); // re-inserted below, at the recent end
    } else {
      value = make(key);
      if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value!);
    }
    this.entries.set(key, value);
    return value;
  }
}
