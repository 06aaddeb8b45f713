import postgres from "postgres"
import { apiClient, createTestDatabase, removeDir, startControl, startEngineProcess, startNats, tempDir } from "./processes.ts"

/**
 * One control and one `ricochet engine` process on a database and a NATS server of their own,
 * for tests that talk to the engine over raw sockets. `sql` reaches the same database, so a test
 * can hold a lock that keeps the engine's cache misses waiting as long as it needs.
 */
export const startEngineStack = async (engineEnv: Record<string, string> = {}) => {
  const db = await createTestDatabase()
  const nats = await startNats()
  const dir = await tempDir("ricochet-engine-")
  const env = { DATABASE_URL: db.url, NATS_URL: nats.url, RICOCHET_DATA_DIR: dir }
  const started: Array<{ stop: () => Promise<unknown> }> = []
  const sql = postgres(db.url, { max: 2, onnotice: () => {} })
  const stop = async () => {
    for (const process of started.reverse()) await process.stop()
    await sql.end({ timeout: 1 })
    await nats.stop()
    await db.drop()
    await removeDir(dir)
  }
  try {
    const control = await startControl(env, true)
    started.push(control)
    const engine = await startEngineProcess({ ...env, ...engineEnv })
    started.push(engine)
    const api = apiClient(control.baseUrl, control.firstKey!)

    /** Holds an exclusive lock on `table` (the engine's queries on it wait) until the returned function is called. */
    const lockTable = async (table: "domains" | "links"): Promise<() => Promise<void>> => {
      let release!: () => void
      let locked!: () => void
      const isLocked = new Promise<void>((resolve) => (locked = resolve))
      const held = new Promise<void>((resolve) => (release = resolve))
      const transaction = sql.begin(async (tx) => {
        await tx.unsafe(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`)
        locked()
        await held
      })
      await Promise.race([isLocked, transaction])
      return async () => {
        release()
        await transaction
      }
    }

    return { control, engine, api, sql, lockTable, host: "my-workspace.localhost", stop }
  } catch (error) {
    await stop()
    throw error
  }
}

export type EngineStack = Awaited<ReturnType<typeof startEngineStack>>
