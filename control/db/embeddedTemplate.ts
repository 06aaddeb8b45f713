import { PGlite } from "@electric-sql/pglite"
import { readFile } from "node:fs/promises"
import { runsBuilt } from "../../shared/build/modulePaths.ts"

/**
 * A new embedded database starts from a copy of an empty one that the build made (scripts/build.ts
 * writes it into dist/), not from PGlite's initdb: initdb, run in WebAssembly, is most of a first
 * start's time (about 10 of 12 s on a loaded machine, where unpacking the copy takes 3).
 */
export const TEMPLATE_FILE = "embedded-template.tar.gz"

/** An empty database as PGlite's initdb leaves it, packed (what `loadDataDir` unpacks). */
export const makeEmbeddedTemplate = async (): Promise<Uint8Array> => {
  const db = await PGlite.create()
  try {
    return new Uint8Array(await (await db.dumpDataDir("gzip")).arrayBuffer())
  } finally {
    await db.close()
  }
}

/**
 * The template beside the running bundle, or undefined: from source (npm run dev, the tests' own
 * calls) there is none and a new database runs initdb, as it does from a build without one.
 */
export const embeddedTemplate = async (): Promise<Blob | undefined> => {
  if (!runsBuilt(import.meta.url)) return undefined
  try {
    return new Blob([await readFile(new URL(`./${TEMPLATE_FILE}`, import.meta.url))])
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined
    throw error
  }
}
