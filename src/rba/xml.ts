// A small, safe XML reader for the RBA's RSS feed: fast-xml-parser's output
// turned into elements with resolved namespaces (URI + local name, whatever the
// prefix) and the line each element starts on.
//
// Entities: nothing declared in a DTD is ever expanded (processEntities is off,
// and a document that declares entities is refused); the five predefined XML
// entities and character references are decoded here.

import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { atLine, formatError } from './errors.js';

export interface XmlElement {
  /** namespace URI, or null for none */
  ns: string | null;
  local: string;
  /** the name as written, e.g. 'cb:value' */
  qname: string;
  /** attributes by name as written */
  attrs: Record<string, string>;
  children: XmlElement[];
  /** the element's own text (entities decoded, not trimmed) */
  text: string;
  /** 1-based line the element starts on */
  line: number;
}

const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[A-Za-z]+);/g, (all, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : all;
    }
    return PREDEFINED[ref] ?? all;
  });
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return starts;
}

function lineAt(starts: readonly number[], index: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= index) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

// fast-xml-parser's preserveOrder output: each node is { [name]: children, ':@'?: attrs }
// or { '#text': text }.
type OrderedNode = Record<string, unknown>;

const META = XMLParser.getMetaDataSymbol() as unknown as symbol;
const ATTR_PREFIX = '@_';

export function parseXml(input: string): XmlElement {
  // A BOM and whitespace before the XML declaration are tolerated (the latter is
  // not strictly well-formed); line numbers still count the lines dropped.
  const unBommed = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  const lead = /^\s*/.exec(unBommed)![0];
  const text = unBommed.slice(lead.length);
  const skipped = lead.split('\n').length - 1;
  const starts = lineStarts(text);
  const fail = (line: number, what: string) => formatError(atLine, line, what);
  const lineOf = (index: number) => lineAt(starts, index) + skipped;

  const entity = /<!ENTITY/i.exec(text);
  if (entity) {
    throw fail(lineOf(entity.index), 'the document declares DTD entities, which are not accepted');
  }
  const valid = XMLValidator.validate(text);
  if (valid !== true) {
    throw fail((valid.err.line || 1) + skipped, `not well-formed XML: ${valid.err.msg}`);
  }

  const parser = new XMLParser({
    preserveOrder: true,
    ignoreAttributes: false,
    attributeNamePrefix: ATTR_PREFIX,
    captureMetaData: true,
    processEntities: false,
    htmlEntities: false,
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: false,
    ignoreDeclaration: true,
    ignorePiTags: true,
  });
  let nodes: OrderedNode[];
  try {
    nodes = parser.parse(text) as OrderedNode[];
  } catch (err) {
    throw fail(1 + skipped, `not well-formed XML: ${(err as Error).message}`);
  }

  const build = (node: OrderedNode, scope: ReadonlyMap<string, string>): XmlElement | null => {
    const qname = Object.keys(node).find((k) => k !== ':@' && k !== '#text');
    if (qname === undefined || qname.startsWith('?') || qname.startsWith('!')) return null;
    const meta = (node as Record<symbol, { startIndex?: number } | undefined>)[META];
    const line = lineOf(meta?.startIndex ?? 0);

    const rawAttrs = (node[':@'] ?? {}) as Record<string, string>;
    const attrs: Record<string, string> = {};
    let inner: Map<string, string> | null = null;
    for (const [key, value] of Object.entries(rawAttrs)) {
      const name = key.startsWith(ATTR_PREFIX) ? key.slice(ATTR_PREFIX.length) : key;
      const v = decodeEntities(String(value));
      attrs[name] = v;
      if (name === 'xmlns' || name.startsWith('xmlns:')) {
        inner ??= new Map(scope);
        inner.set(name === 'xmlns' ? '' : name.slice(6), v);
      }
    }
    const here = inner ?? scope;

    const colon = qname.indexOf(':');
    const prefix = colon < 0 ? '' : qname.slice(0, colon);
    const local = colon < 0 ? qname : qname.slice(colon + 1);
    const uri = here.get(prefix);
    if (prefix !== '' && uri === undefined) {
      throw fail(line, `the namespace prefix '${prefix}' of <${qname}> is not declared`);
    }

    const children: XmlElement[] = [];
    let ownText = '';
    for (const child of (node[qname] ?? []) as OrderedNode[]) {
      if ('#text' in child) ownText += String(child['#text']);
      else {
        const el = build(child, here);
        if (el) children.push(el);
      }
    }
    return { ns: uri || null, local, qname, attrs, children, text: decodeEntities(ownText), line };
  };

  const root = nodes.map((n) => build(n, new Map([['xml', 'http://www.w3.org/XML/1998/namespace']]))).find(Boolean);
  if (!root) throw fail(1 + skipped, 'the XML document has no root element');
  return root;
}

/** The first child with this local name (and namespace, when given). */
export function child(el: XmlElement, local: string, ns?: string): XmlElement | undefined {
  return el.children.find((c) => c.local === local && (ns === undefined || c.ns === ns));
}

export function children(el: XmlElement, local: string, ns?: string): XmlElement[] {
  return el.children.filter((c) => c.local === local && (ns === undefined || c.ns === ns));
}

/** Follows a path of local names from el; undefined if any step is missing. */
export function path(el: XmlElement, ...locals: string[]): XmlElement | undefined {
  let at: XmlElement | undefined = el;
  for (const l of locals) at = at && child(at, l);
  return at;
}
