import { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { existsSync } from "node:fs"
import { mkdir, rm } from "node:fs/promises"
import * as path from "node:path"
import postgres from "postgres"
import type { Sql } from "postgres"
import { clientOptions } from "../../shared/db/client.ts"
import { describeHolder, type LockHolder, lockDirectory } from "../../shared/startup/directoryLock.ts"
import { embeddedTemplate } from "./embeddedTemplate.ts"

/** Another process (a server, or the CLI opening it) holds the data directory. */
export class DataDirectoryInUse extends Error {
  constructor(readonly dataDir: string, readonly holder: LockHolder) {
    super(`the data directory ${dataDir} is in use by another Ricochet process (${describeHolder(holder)}); stop it first, or set RICOCHET_DATA_DIR to another directory`)
  }
}

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
 *
 * One process at a time opens a data directory (a lock file in it, see directoryLock.ts): two
 * PGlite instances on the same files lose writes. `holder` says who this one is, for the message
 * the next one gets. Throws DataDirectoryInUse when another process holds it.
 */
export const openEmbedded = async (dataDir: string, holder: string): Promise<EmbeddedDatabase> => {
  const lock = await lockDirectory(dataDir, holder)
  if ("heldBy" in lock) throw new DataDirectoryInUse(dataDir, lock.heldBy)
  try {
    return await openLocked(dataDir, lock.release)
  } catch (error) {
    await lock.release()
    throw error
  }
}

const openLocked = async (dataDir: string, release: () => Promise<void>): Promise<EmbeddedDatabase> => {
  const pgDir = path.join(dataDir, "pg")
  const runDir = path.join(dataDir, "run")
  await mkdir(pgDir, { recursive: true })
  await mkdir(runDir, { recursive: true })
  // A directory PGlite has not initialised yet has no PG_VERSION.
  const template = existsSync(path.join(pgDir, "PG_VERSION")) ? undefined : await embeddedTemplate()
  const db = await PGlite.create({ dataDir: pgDir, ...(template === undefined ? {} : { loadDataDir: template }) })
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
      await release()
    }
  }
}
