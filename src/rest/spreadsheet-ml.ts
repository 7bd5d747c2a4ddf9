// The parts of an .xlsx (Office Open XML, ECMA-376 Part 1), as the files of its zip archive: the
// package's content types and relationships, the core properties, the workbook, a worksheet per
// sheet written a row at a time, and the styles, a cell format per number format the sheets used.
// Only what the service's workbooks hold: text cells, numbers with a number format, column widths.
import type { ZipFile } from './zip.js';

/** A number and the Excel number format it is shown with. */
export interface NumberCell {
  readonly v: number;
  readonly z: string;
}

/** A cell: a number, a text, or null for none. */
export type Cell = NumberCell | string | null;

export interface SheetData {
  name: string;
  /** the header row, then the records */
  rows: () => Iterable<readonly Cell[]>;
  /** each column's width, in characters */
  widths: readonly number[];
}

export interface BookProperties {
  title: string;
  author: string;
  /** when it was created and last changed */
  stamp: Date;
}

const DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const RELATIONSHIPS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PACKAGE = 'http://schemas.openxmlformats.org/package/2006';
const TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml';
/** the first number format id free for a workbook's own (those below are Excel's built-in ones) */
const FIRST_FORMAT_ID = 164;
/** the pixel width of a digit in Excel's default font, Calibri 11 (ECMA-376 §18.3.1.13) */
const DIGIT_PIXELS = 7;

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
const escape = (text: string) => text.replace(/[&<>"]/g, (c) => ENTITIES[c]!);

/** A column's letters: 0 is A, 25 Z, 26 AA. */
function columnName(index: number): string {
  let name = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

/** A width of `characters` digits as the file states it: their pixels and 5 of padding, in digits, to 1/256. */
const columnWidth = (characters: number) => Math.floor(((characters * DIGIT_PIXELS + 5) / DIGIT_PIXELS) * 256) / 256;

/** The cell formats, one per number format in the order the sheets first use it; 0 is the default. */
class CellFormats {
  private readonly indexes = new Map<string, number>();

  indexOf(format: string): number {
    let index = this.indexes.get(format);
    if (index === undefined) this.indexes.set(format, (index = this.indexes.size + 1));
    return index;
  }

  stylesXml(): string {
    const formats = [...this.indexes.keys()];
    const numFmts = formats.map((format, i) => `<numFmt numFmtId="${FIRST_FORMAT_ID + i}" formatCode="${escape(format)}"/>`).join('');
    const xfs = formats.map((_, i) => `<xf numFmtId="${FIRST_FORMAT_ID + i}" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>`).join('');
    return (
      `${DECLARATION}<styleSheet xmlns="${MAIN}">` +
      (formats.length > 0 ? `<numFmts count="${formats.length}">${numFmts}</numFmts>` : '') +
      '<fonts count="1"><font><sz val="11"/><name val="Calibri"/><family val="2"/></font></fonts>' +
      '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
      '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
      '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
      `<cellXfs count="${formats.length + 1}"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>${xfs}</cellXfs>` +
      '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>' +
      '</styleSheet>'
    );
  }
}

/** A worksheet, a row at a time: texts inline, numbers with the cell format of their number format. */
function* worksheetXml(sheet: SheetData, formats: CellFormats): Generator<string> {
  yield `${DECLARATION}<worksheet xmlns="${MAIN}">`;
  if (sheet.widths.length > 0) {
    const cols = sheet.widths.map((width, i) => `<col min="${i + 1}" max="${i + 1}" width="${columnWidth(width)}" customWidth="1"/>`);
    yield `<cols>${cols.join('')}</cols>`;
  }
  yield '<sheetData>';
  const columns: string[] = [];
  let r = 0;
  for (const row of sheet.rows()) {
    r++;
    let cells = '';
    for (let c = 0; c < row.length; c++) {
      const cell = row[c];
      if (cell === null || cell === undefined) continue;
      const ref = `${(columns[c] ??= columnName(c))}${r}`;
      cells +=
        typeof cell === 'string'
          ? `<c r="${ref}" t="inlineStr"><is><t>${escape(cell)}</t></is></c>`
          : `<c r="${ref}" s="${formats.indexOf(cell.z)}"><v>${cell.v}</v></c>`;
    }
    if (cells !== '') yield `<row r="${r}">${cells}</row>`;
  }
  yield '</sheetData></worksheet>';
}

/** A W3C date-time to the second, as the core properties take it. */
const w3cdtf = (instant: Date) => instant.toISOString().replace(/\.\d+Z$/, 'Z');

/** The files of a workbook of `sheets`, each sheet's text made as the archive is written. */
export function xlsxFiles(sheets: readonly SheetData[], properties: BookProperties): ZipFile[] {
  const fixed = (name: string, text: string): ZipFile => ({ name, text: () => [DECLARATION, text] });
  const formats = new CellFormats();
  const sheetTypes = sheets.map((_, i) => `<Override PartName="/xl/worksheets/sheet${i + 1}.xml" ContentType="${TYPE}.worksheet+xml"/>`);
  const sheetRelationships = sheets.map((_, i) => `<Relationship Id="rId${i + 1}" Type="${RELATIONSHIPS}/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`);
  const stamp = w3cdtf(properties.stamp);
  return [
    fixed(
      '[Content_Types].xml',
      `<Types xmlns="${PACKAGE}/content-types">` +
        `<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
        '<Default Extension="xml" ContentType="application/xml"/>' +
        `<Override PartName="/xl/workbook.xml" ContentType="${TYPE}.sheet.main+xml"/>${sheetTypes.join('')}` +
        `<Override PartName="/xl/styles.xml" ContentType="${TYPE}.styles+xml"/>` +
        '<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>' +
        '</Types>',
    ),
    fixed(
      '_rels/.rels',
      `<Relationships xmlns="${PACKAGE}/relationships">` +
        `<Relationship Id="rId1" Type="${RELATIONSHIPS}/officeDocument" Target="xl/workbook.xml"/>` +
        `<Relationship Id="rId2" Type="${PACKAGE}/relationships/metadata/core-properties" Target="docProps/core.xml"/>` +
        '</Relationships>',
    ),
    fixed(
      'docProps/core.xml',
      `<cp:coreProperties xmlns:cp="${PACKAGE}/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">` +
        `<dc:title>${escape(properties.title)}</dc:title><dc:creator>${escape(properties.author)}</dc:creator>` +
        `<dcterms:created xsi:type="dcterms:W3CDTF">${stamp}</dcterms:created><dcterms:modified xsi:type="dcterms:W3CDTF">${stamp}</dcterms:modified>` +
        '</cp:coreProperties>',
    ),
    fixed(
      'xl/workbook.xml',
      `<workbook xmlns="${MAIN}" xmlns:r="${RELATIONSHIPS}"><sheets>` +
        sheets.map((sheet, i) => `<sheet name="${escape(sheet.name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join('') +
        '</sheets></workbook>',
    ),
    fixed(
      'xl/_rels/workbook.xml.rels',
      `<Relationships xmlns="${PACKAGE}/relationships">${sheetRelationships.join('')}` +
        `<Relationship Id="rId${sheets.length + 1}" Type="${RELATIONSHIPS}/styles" Target="styles.xml"/></Relationships>`,
    ),
    ...sheets.map((sheet, i) => ({ name: `xl/worksheets/sheet${i + 1}.xml`, text: () => worksheetXml(sheet, formats) })),
    // after the sheets: its formats are those they used
    { name: 'xl/styles.xml', text: () => [formats.stylesXml()] },
  ];
}
