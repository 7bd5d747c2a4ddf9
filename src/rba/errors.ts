// The one error type of the RBA parsers. A malformed file is refused whole, and
// the message always says where (line, or sheet row for .xls) and what is wrong.

export class RbaFormatError extends Error {
  readonly code = 'rba_format';

  constructor(
    message: string,
    readonly line?: number,
  ) {
    super(message);
    this.name = 'RbaFormatError';
  }
}

// Says where a problem is, for messages: 'line 14' in a CSV or XML file,
// "sheet 'Data' row 14" in a workbook.
export type Locator = (line: number) => string;

export const atLine: Locator = (line) => `line ${line}`;

export function formatError(where: Locator, line: number, what: string): RbaFormatError {
  return new RbaFormatError(`${where(line)}: ${what}`, line);
}
