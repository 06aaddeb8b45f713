import { xxh32 } from "@node-rs/xxhash"

/**
 * A Bloom filter of the slugs on one domain: "no" is certain, "maybe" sends the lookup on to the
 * cache and the database. About 10 bits per slug for a ~1% false-positive rate, so a scanner
 * trying random slugs is answered from memory instead of the database.
 */
export class SlugFilter {
  private readonly bits: Uint32Array
  private readonly size: number
  private count = 0

  /** Sized for `expected` slugs with headroom for growth; `saturated` says when to rebuild. */
  constructor(readonly capacity: number, private readonly hashes = 7) {
    this.size = Math.max(1024, Math.ceil(capacity * 10))
    this.bits = new Uint32Array(Math.ceil(this.size / 32))
  }

  static forCount(count: number): SlugFilter {
    return new SlugFilter(Math.max(1024, Math.ceil(count * 1.5)))
  }

  add(slug: string): void {
    const a = xxh32(slug, 0x9747b28c)
    const b = xxh32(slug, 0x5bd1e995) | 1
    for (let i = 0; i < this.hashes; i++) {
      const bit = (a + i * b) >>> 0
      const index = bit % this.size
      this.bits[index >>> 5] |= 1 << (index & 31)
    }
    this.count++
  }

  mayContain(slug: string): boolean {
    const a = xxh32(slug, 0x9747b28c)
    const b = xxh32(slug, 0x5bd1e995) | 1
    for (let i = 0; i < this.hashes; i++) {
      const index = ((a + i * b) >>> 0) % this.size
      if ((this.bits[index >>> 5] & (1 << (index & 31))) === 0) return false
    }
    return true
  }

  /** Past its capacity the false-positive rate climbs; the owner rebuilds it from the database. */
  get saturated(): boolean {
    return this.count > this.capacity
  }

  get bytes(): number {
    return this.bits.byteLength
  }
}
