/**
 * A memo keyed by User-Agent string for the redirect hot path.
 *
 * Real traffic repeats a few hundred User-Agents over and over, so remembering the answer
 * skips the regex work on almost every request. An LRU would keep the hot set a little
 * better, but its bookkeeping costs more than it saves here: clearing the whole map when it
 * fills is O(1) amortised, allocation-free on a hit, and the hot set refills in a few ms.
 *
 * Keys longer than `maxKeyLength` are not stored: a client sending random multi-kilobyte
 * User-Agents must not be able to pin megabytes of strings in every worker.
 */
export class BoundedMemo<V> {
  private readonly map = new Map<string, V>()

  constructor(
    private readonly maxEntries = 4096,
    private readonly maxKeyLength = 1024
  ) {}

  get(key: string): V | undefined {
    return this.map.get(key)
  }

  set(key: string, value: V): void {
    if (key.length > this.maxKeyLength) return
    if (this.map.size >= this.maxEntries) this.map.clear()
    this.map.set(key, value)
  }

  get size(): number {
    return this.map.size
  }

  clear(): void {
    this.map.clear()
  }
}
