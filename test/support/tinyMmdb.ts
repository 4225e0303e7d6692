// A MaxMind DB file (https://maxmind.github.io/MaxMind-DB/) in which every
// IPv4 address has the same record: enough for nginx's geoip2 module to open
// it and answer lookups, without MaxMind's databases (the operator's files).
// One search tree node whose two records both point at the one data record.

type Value = string | number | { readonly [key: string]: Value } | readonly Value[];

const METADATA_MARKER = Buffer.concat([Buffer.from([0xab, 0xcd, 0xef]), Buffer.from('MaxMind.com')]);

/** The control byte(s) of a field: type 1-7 in the byte, 8+ in an extension byte; sizes below 29 only. */
function control(type: number, size: number): Buffer {
  if (size >= 29) throw new Error('tinyMmdb writes sizes below 29 only');
  return type <= 7 ? Buffer.from([(type << 5) | size]) : Buffer.from([size, type - 7]);
}

function unsigned(type: number, value: number): Buffer {
  const bytes: number[] = [];
  for (let rest = value; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.concat([control(type, bytes.length), Buffer.from(bytes)]);
}

function encode(value: Value): Buffer {
  if (typeof value === 'string') {
    const text = Buffer.from(value, 'utf8');
    return Buffer.concat([control(2, text.length), text]);
  }
  // uint32: geoname ids, AS numbers.
  if (typeof value === 'number') return unsigned(6, value);
  if (Array.isArray(value)) return Buffer.concat([control(11, value.length), ...value.map(encode)]);
  const entries = Object.entries(value as { readonly [key: string]: Value });
  return Buffer.concat([control(7, entries.length), ...entries.flatMap(([key, item]) => [encode(key), encode(item)])]);
}

/** The 24-bit records of one node. */
function node(left: number, right: number): Buffer {
  const bytes = Buffer.alloc(6);
  bytes.writeUIntBE(left, 0, 3);
  bytes.writeUIntBE(right, 3, 3);
  return bytes;
}

export function tinyMmdb(databaseType: string, record: { readonly [key: string]: Value }): Buffer {
  const nodeCount = 1;
  // A record past the node count points into the data section, 16 bytes (its separator) in.
  const toData = nodeCount + 16;
  const metadata = Buffer.concat([
    control(7, 9),
    encode('node_count'),
    unsigned(6, nodeCount),
    encode('record_size'),
    unsigned(5, 24),
    encode('ip_version'),
    unsigned(5, 4),
    encode('database_type'),
    encode(databaseType),
    encode('languages'),
    encode(['en']),
    encode('binary_format_major_version'),
    unsigned(5, 2),
    encode('binary_format_minor_version'),
    unsigned(5, 0),
    encode('build_epoch'),
    Buffer.concat([control(9, 4), Buffer.from([0x65, 0x00, 0x00, 0x00])]),
    encode('description'),
    encode({ en: 'Portico test database' }),
  ]);
  return Buffer.concat([node(toData, toData), Buffer.alloc(16), encode(record), METADATA_MARKER, metadata]);
}
