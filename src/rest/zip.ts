// A zip archive written as it is produced (the container of an .xlsx, D44 in docs/decisions.md):
// each file's text is deflated a block at a time and sent, so a file of any length is never held
// whole. Its CRC and sizes are known only at its end, so they follow its data in a data descriptor
// (general-purpose flag bit 3) and are repeated in the central directory, which readers go by.
// Each block is deflated on its own and ends with a sync flush, the last one with the final block:
// concatenated, they are one valid deflate stream.
import { constants, crc32, deflateRawSync } from 'node:zlib';

/** A file of the archive: its name (ASCII) and its text, in pieces. */
export interface ZipFile {
  name: string;
  text: () => Iterable<string>;
}

/** Text deflated at a time. */
const BLOCK_CHARS = 64 * 1024;
const FLAGS = 0x0008; // bit 3: CRC and sizes in the data descriptor
const DEFLATE = 8;
const VERSION = 20; // 2.0: deflate
const DOS_DATE = 0x0021; // 1980-01-01, the earliest a zip can say: the bytes never depend on the clock

interface Written {
  name: Buffer;
  crc: number;
  compressed: number;
  size: number;
  offset: number;
}

function localHeader(name: Buffer): Buffer {
  const header = Buffer.alloc(30);
  header.writeUInt32LE(0x04034b50, 0);
  header.writeUInt16LE(VERSION, 4);
  header.writeUInt16LE(FLAGS, 6);
  header.writeUInt16LE(DEFLATE, 8);
  header.writeUInt16LE(DOS_DATE, 12);
  // CRC and sizes (14–25) stay 0: they are in the data descriptor
  header.writeUInt16LE(name.length, 26);
  return Buffer.concat([header, name]);
}

function dataDescriptor(file: Written): Buffer {
  const descriptor = Buffer.alloc(16);
  descriptor.writeUInt32LE(0x08074b50, 0);
  descriptor.writeUInt32LE(file.crc, 4);
  descriptor.writeUInt32LE(file.compressed, 8);
  descriptor.writeUInt32LE(file.size, 12);
  return descriptor;
}

function centralEntry(file: Written): Buffer {
  const entry = Buffer.alloc(46);
  entry.writeUInt32LE(0x02014b50, 0);
  entry.writeUInt16LE(VERSION, 4);
  entry.writeUInt16LE(VERSION, 6);
  entry.writeUInt16LE(FLAGS, 8);
  entry.writeUInt16LE(DEFLATE, 10);
  entry.writeUInt16LE(DOS_DATE, 14);
  entry.writeUInt32LE(file.crc, 16);
  entry.writeUInt32LE(file.compressed, 20);
  entry.writeUInt32LE(file.size, 24);
  entry.writeUInt16LE(file.name.length, 28);
  entry.writeUInt32LE(file.offset, 42);
  return Buffer.concat([entry, file.name]);
}

function endOfDirectory(count: number, size: number, offset: number): Buffer {
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(count, 8);
  end.writeUInt16LE(count, 10);
  end.writeUInt32LE(size, 12);
  end.writeUInt32LE(offset, 16);
  return end;
}

/** The archive's bytes, in the order of `files`. */
export function* zip(files: Iterable<ZipFile>): Generator<Uint8Array> {
  const written: Written[] = [];
  let offset = 0;
  const send = (bytes: Buffer) => {
    offset += bytes.length;
    return bytes;
  };
  for (const { name, text } of files) {
    const file: Written = { name: Buffer.from(name, 'ascii'), crc: 0, compressed: 0, size: 0, offset };
    yield send(localHeader(file.name));
    const deflate = (pending: string, last: boolean): Buffer => {
      const raw = Buffer.from(pending);
      file.crc = crc32(raw, file.crc);
      file.size += raw.length;
      const out = deflateRawSync(raw, last ? {} : { finishFlush: constants.Z_SYNC_FLUSH });
      file.compressed += out.length;
      return out;
    };
    let pending = '';
    for (const piece of text()) {
      pending += piece;
      if (pending.length >= BLOCK_CHARS) {
        yield send(deflate(pending, false));
        pending = '';
      }
    }
    yield send(deflate(pending, true));
    yield send(dataDescriptor(file));
    written.push(file);
  }
  const start = offset;
  for (const file of written) yield send(centralEntry(file));
  yield endOfDirectory(written.length, offset - start, start);
}
