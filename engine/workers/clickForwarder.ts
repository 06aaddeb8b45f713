import type { RawClick } from "../../shared/clicks/click.ts"
import type { RawClickColumns } from "../../shared/clicks/writerMessages.ts"
import type { ClickIntake } from "../clicks/clickChannel.ts"
import { emptyColumns, pushColumns } from "../clicks/clickWriterProtocol.ts"

const BATCH = 256
const INTERVAL_MS = 50

/**
 * An HTTP worker's click intake: clicks gathered in columns, as the main thread's ClickChannel
 * gathers them, and posted to the main thread in batches, which hands them to the one writer
 * (whose backlog bound counts what it must drop).
 */
export class ClickForwarder implements ClickIntake {
  private pending = emptyColumns()
  private timer: NodeJS.Timeout | undefined

  constructor(private readonly post: (clicks: RawClickColumns) => void) {}

  add(click: RawClick): void {
    pushColumns(this.pending, click)
    if (this.pending.timestamp.length >= BATCH) this.flush()
    else this.timer ??= setTimeout(() => this.flush(), INTERVAL_MS)
  }

  /** Posts what is gathered now. */
  flush(): void {
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.timer = undefined
    if (this.pending.timestamp.length === 0) return
    const clicks = this.pending
    this.pending = emptyColumns()
    this.post(clicks)
  }
}
