import { PGlite } from "@electric-sql/pglite"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { openEmbedded } from "../control/db/embedded.ts"
import { migrate } from "../control/db/migrate.ts"

/**
 * The database a new embedded data directory starts from (control/db/embeddedTemplate.ts): PGlite's
 * initdb, then this version's migrations, applied as a start applies them, packed as PGlite's
 * `loadDataDir` unpacks it. Run from source, opening a new data directory runs initdb.
 */
export const makeEmbeddedTemplate = async (): Promise<Uint8Array> => {
  const dir = await mkdtemp(path.join(tmpdir(), "ricochet-template-"))
  try {
    const embedded = await openEmbedded(dir, "the build (scripts/embeddedTemplate.ts)")
    try {
      await migrate(embedded.sql)
    } finally {
      await embedded.close()
    }
    const db = await PGlite.create({ dataDir: path.join(dir, "pg") })
    try {
      return new Uint8Array(await (await db.dumpDataDir("gzip")).arrayBuffer())
    } finally {
      await db.close()
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
