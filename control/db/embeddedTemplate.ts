import { readFile } from "node:fs/promises"
import { runsBuilt } from "../../shared/build/modulePaths.ts"

/**
 * A new embedded database starts from a copy the build made (scripts/embeddedTemplate.ts, written
 * into dist/): PGlite's initdb and this version's migrations, already done. initdb, run in
 * WebAssembly, was most of a first start's time (about 10 of 12 s on a loaded machine, where
 * unpacking the copy takes 3), and the migrations most of the rest.
 */
export const TEMPLATE_FILE = "embedded-template.tar.gz"

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
