/**
 * CSV injection (OWASP, "CSV Injection"): a spreadsheet opening a CSV reads a cell that starts
 * with `=`, `+`, `-`, `@`, a tab or a carriage return as a formula, so a link title such as
 * `=HYPERLINK("http://evil.example","x")` would run in whoever opens the export. The export
 * writes such a cell with a leading `'` (the spreadsheets' own "this is text" mark), and the
 * import removes it again, so export → import gives back every value exactly.
 *
 * For that to hold for values that themselves start with `'`, the rule looks past any run of
 * leading `'`: a value that is `'`s then a formula start (`'=x`, `''@y`) gets one more `'` on
 * export (`''=x`) and loses one on import. Every other value is written and read as it is. The
 * two functions are inverse on every string: export never writes a cell the import would change
 * unless it added the `'` itself.
 *
 * Every cell goes through it, not only free text: a slug may begin with `-` (`-abc`), and a
 * spreadsheet would make `-1` a number and `-abc` a formula. URLs, hosts, ids, dates and JSON
 * cells never start with these characters, so they are never changed.
 */
const FORMULA_START = /^'*[=+\-@\t\r]/
const NEUTRALISED = /^'+[=+\-@\t\r]/

/** The cell as the export writes it: a leading `'` when a spreadsheet would read it as a formula. */
export const neutraliseFormula = (value: string): string => (FORMULA_START.test(value) ? `'${value}` : value)

/** The value an exported cell holds: the export's `'` removed, anything else as it is. */
export const restoreFormula = (cell: string): string => (NEUTRALISED.test(cell) ? cell.slice(1) : cell)
