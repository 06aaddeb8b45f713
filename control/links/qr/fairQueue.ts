/**
 * A bounded queue shared by tenants (workspaces), fair between them:
 *
 * - at most `capacity` items wait in all, so a burst costs a bounded amount of memory and wait;
 * - at most `perTenant` items of one tenant are held at once, waiting or taken and not yet
 *   released, so one tenant cannot fill the queue (nor every worker) and shut the others out;
 * - items are taken round-robin across the tenants that have some waiting, each tenant's in its
 *   own order, so a tenant's item waits behind at most one item of each other tenant per turn,
 *   never behind another tenant's whole backlog.
 *
 * An item taken counts against its tenant until `release`: what a tenant has running limits what
 * it may queue.
 */
export type Offered = "queued" | "full" | "tenantFull"

export class FairQueue<T> {
  /** Waiting items by tenant; a tenant is here only while it has some. */
  private readonly waitingBy = new Map<string, Array<T>>()
  /** Tenants with waiting items, in the order they take their next turn. */
  private turns: Array<string> = []
  private readonly heldBy = new Map<string, number>()
  private count = 0

  constructor(readonly capacity: number, readonly perTenant: number) {}

  /** Items waiting, all tenants together. */
  get waiting(): number {
    return this.count
  }

  /** Items of `tenant` waiting or taken and not yet released. */
  held(tenant: string): number {
    return this.heldBy.get(tenant) ?? 0
  }

  offer(tenant: string, item: T): Offered {
    if (this.held(tenant) >= this.perTenant) return "tenantFull"
    if (this.count >= this.capacity) return "full"
    const items = this.waitingBy.get(tenant)
    if (items === undefined) {
      this.waitingBy.set(tenant, [item])
      this.turns.push(tenant)
    } else {
      items.push(item)
    }
    this.heldBy.set(tenant, this.held(tenant) + 1)
    this.count++
    return "queued"
  }

  /** The next item, of the tenant whose turn it is; it stays held until released. */
  take(): { readonly tenant: string; readonly item: T } | undefined {
    const tenant = this.turns.shift()
    if (tenant === undefined) return undefined
    const items = this.waitingBy.get(tenant)!
    const item = items.shift()!
    if (items.length === 0) this.waitingBy.delete(tenant)
    else this.turns.push(tenant)
    this.count--
    return { tenant, item }
  }

  /** A taken item is done: its tenant may hold another. */
  release(tenant: string): void {
    const held = this.held(tenant) - 1
    if (held > 0) this.heldBy.set(tenant, held)
    else this.heldBy.delete(tenant)
  }

  /** Withdraws a waiting item (its requester gave up); false when it is not waiting (taken already). */
  remove(tenant: string, item: T): boolean {
    const items = this.waitingBy.get(tenant)
    const index = items?.indexOf(item) ?? -1
    if (items === undefined || index === -1) return false
    items.splice(index, 1)
    if (items.length === 0) {
      this.waitingBy.delete(tenant)
      this.turns = this.turns.filter((t) => t !== tenant)
    }
    this.count--
    this.release(tenant)
    return true
  }
}
