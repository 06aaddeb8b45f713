import { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { mkdir, rm } from "node:fs/promises"
import * as path from "node:path"
import postgres from "postgres"
import type { Sql } from "postgres"
import { clientOptions } from "../../shared/db/client.ts"

export interface EmbeddedDatabase {
  readonly sql: Sql
  readonly close: () => Promise<void>
}

/**
 * The embedded default: PGlite keeps its files under the data directory and is served over the
 * PostgreSQL wire protocol on a Unix socket inside it, so the rest of Ricochet talks to it with the
 * same `postgres` client it uses for a real server.
 *
 * PGlite is a single session. pglite-socket can multiplex several client connections, but it
 * interleaves their protocol messages outside transactions (two clients' unnamed statements can
 * clash), so the socket accepts one connection and the pool holds exactly that one. Other local
 * processes (the CLI) reach a running server through its admin socket instead.
 */
export const openEmbedded = async (dataDir: string): Promise<EmbeddedDatabase> => {
  const pgDir = path.join(dataDir, "pg")
  const runDir = path.join(dataDir, "run")
  await mkdir(pgDir, { recursive: true })
  await mkdir(runDir, { recursive: true })
  const db = await PGlite.create({ dataDir: pgDir })
  // Unix socket paths are limited to ~107 bytes; a deep data directory falls back to loopback TCP.
  const socketPath = path.join(runDir, ".s.PGSQL.5432")
  const useSocket = Buffer.byteLength(socketPath) < 100
  if (useSocket) await rm(socketPath, { force: true })
  const server = new PGLiteSocketServer(
    useSocket ? { db, path: socketPath, maxConnections: 1 } : { db, host: "127.0.0.1", port: 0, maxConnections: 1 }
  )
  await server.start()
  const address = useSocket ? { path: socketPath } : { host: "127.0.0.1", port: Number(server.getServerConn().split(":").pop()) }
  const sql = postgres({
    ...clientOptions,
    ...address,
    database: "postgres",
    username: "postgres",
    max: 1,
    // The one connection must never be given up: another process could take the only slot.
    idle_timeout: 0,
    max_lifetime: null
  })
  return {
    sql,
    close: async () => {
      await sql.end({ timeout: 5 })
      await server.stop()
      await db.close()
    }
  }
}
