import { quote, truncated } from './quote.ts';

/**
 * The file kinds a session or turn may attach (spec 2 "File input item", rule 1), keyed by
 * lowercase extension, each with one canonical media type and a class.
 *
 * Choices (docs/decisions/attachment-file-rules.md):
 * - Class follows the spec's own grouping. `text` is the first group of rule 1: text-typed files
 *   plus JSON, JSON-LD, NDJSON, XML, YAML, JavaScript, TypeScript. Everything else accepted is
 *   `binary`, including RTF, flat-XML OpenDocument and `.eml`: they are text on disk, but they
 *   are documents that need a converter (a shell) before a model can use them.
 * - "Text-typed" beyond the spec's list: a few plain-text formats an agent is routinely handed
 *   (`.log .ini .cfg .conf .toml .sql .py .sh .bash`, `.jsx` with JavaScript). A shell script is
 *   text the model reads; "executables" means compiled binaries, which stay refused.
 * - TypeScript's canonical type is `text/typescript` (no IANA registration exists; a `text/`
 *   type states the class). `video/mp2t`, which many tools guess for `.ts` and `.mts`, is refused.
 * - Canonical types keep their registered spelling (`...macroEnabled.12`); comparison is
 *   case-insensitive, so callers may send any case.
 * - Aliases are the other names real clients send for the same kind: legacy `x-` types,
 *   `text/xml`, `text/rtf`, `image/jpg`, the `application/x-iwork-*` types Safari reports for
 *   iWork files, and `application/vnd.ms-excel` for `.csv` (what Windows reports for CSV when
 *   Excel is installed). Any text-class extension also accepts `text/plain`, which is true of it.
 * - `application/octet-stream` ("unknown bytes") is accepted for every listed extension and
 *   replaced by its canonical type (rule 2).
 * - An unlisted extension is accepted only when the declared type is one of the types above; it
 *   then takes that kind's canonical type and class. So `notes.rs` declared `text/plain` is text.
 *   Archives, audio, video and executables are refused by extension even when the declared type
 *   is an accepted one, and by type (`audio/*`, `video/*`, archive and executable types).
 */

export type FileClass = 'text' | 'binary';

export type FileKind = {
  /** The canonical media type, in its registered spelling. */
  mediaType: string;
  fileClass: FileClass;
  /** Other declared types (lowercase) that name this kind. */
  aliases: readonly string[];
};

type KindRow = { extensions: readonly string[]; mediaType: string; aliases?: readonly string[] };

const TEXT_KINDS: readonly KindRow[] = [
  { extensions: ['txt', 'text', 'log', 'ini', 'cfg', 'conf'], mediaType: 'text/plain' },
  { extensions: ['md', 'markdown'], mediaType: 'text/markdown', aliases: ['text/x-markdown'] },
  { extensions: ['csv'], mediaType: 'text/csv', aliases: ['application/csv', 'text/x-csv', 'application/vnd.ms-excel'] },
  { extensions: ['tsv'], mediaType: 'text/tab-separated-values' },
  { extensions: ['html', 'htm'], mediaType: 'text/html' },
  { extensions: ['css'], mediaType: 'text/css' },
  { extensions: ['toml'], mediaType: 'application/toml', aliases: ['text/toml', 'text/x-toml'] },
  { extensions: ['sql'], mediaType: 'application/sql', aliases: ['text/x-sql'] },
  { extensions: ['py'], mediaType: 'text/x-python', aliases: ['text/x-script.python', 'application/x-python'] },
  { extensions: ['sh', 'bash'], mediaType: 'text/x-shellscript', aliases: ['application/x-sh', 'application/x-shellscript', 'text/x-sh'] },
  { extensions: ['json'], mediaType: 'application/json', aliases: ['text/json'] },
  { extensions: ['jsonld'], mediaType: 'application/ld+json' },
  { extensions: ['ndjson', 'jsonl'], mediaType: 'application/x-ndjson', aliases: ['application/jsonl', 'application/x-jsonlines'] },
  { extensions: ['xml'], mediaType: 'application/xml', aliases: ['text/xml'] },
  { extensions: ['yaml', 'yml'], mediaType: 'application/yaml', aliases: ['application/x-yaml', 'text/yaml', 'text/x-yaml'] },
  { extensions: ['js', 'mjs', 'cjs', 'jsx'], mediaType: 'text/javascript', aliases: ['application/javascript', 'application/x-javascript'] },
  {
    extensions: ['ts', 'mts', 'cts', 'tsx'],
    mediaType: 'text/typescript',
    aliases: ['application/typescript', 'application/x-typescript', 'text/x-typescript'],
  },
];

const BINARY_KINDS: readonly KindRow[] = [
  { extensions: ['png'], mediaType: 'image/png' },
  { extensions: ['jpg', 'jpeg'], mediaType: 'image/jpeg', aliases: ['image/jpg', 'image/pjpeg'] },
  { extensions: ['webp'], mediaType: 'image/webp' },
  { extensions: ['gif'], mediaType: 'image/gif' },
  { extensions: ['pdf'], mediaType: 'application/pdf', aliases: ['application/x-pdf'] },
  { extensions: ['rtf'], mediaType: 'application/rtf', aliases: ['text/rtf'] },
  // Microsoft Office: word processing, spreadsheets, presentations (24 extensions).
  { extensions: ['doc', 'dot'], mediaType: 'application/msword' },
  { extensions: ['docx'], mediaType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' },
  { extensions: ['docm'], mediaType: 'application/vnd.ms-word.document.macroEnabled.12' },
  { extensions: ['dotx'], mediaType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.template' },
  { extensions: ['dotm'], mediaType: 'application/vnd.ms-word.template.macroEnabled.12' },
  { extensions: ['xls', 'xlt', 'xla'], mediaType: 'application/vnd.ms-excel' },
  { extensions: ['xlsx'], mediaType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' },
  { extensions: ['xlsm'], mediaType: 'application/vnd.ms-excel.sheet.macroEnabled.12' },
  { extensions: ['xlsb'], mediaType: 'application/vnd.ms-excel.sheet.binary.macroEnabled.12' },
  { extensions: ['xlam'], mediaType: 'application/vnd.ms-excel.addin.macroEnabled.12' },
  { extensions: ['xltx'], mediaType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.template' },
  { extensions: ['xltm'], mediaType: 'application/vnd.ms-excel.template.macroEnabled.12' },
  { extensions: ['ppt', 'pot', 'pps'], mediaType: 'application/vnd.ms-powerpoint' },
  { extensions: ['pptx'], mediaType: 'application/vnd.openxmlformats-officedocument.presentationml.presentation' },
  { extensions: ['pptm'], mediaType: 'application/vnd.ms-powerpoint.presentation.macroEnabled.12' },
  { extensions: ['ppsx'], mediaType: 'application/vnd.openxmlformats-officedocument.presentationml.slideshow' },
  { extensions: ['ppsm'], mediaType: 'application/vnd.ms-powerpoint.slideshow.macroEnabled.12' },
  { extensions: ['potx'], mediaType: 'application/vnd.openxmlformats-officedocument.presentationml.template' },
  { extensions: ['potm'], mediaType: 'application/vnd.ms-powerpoint.template.macroEnabled.12' },
  // OpenDocument: text, spreadsheet, presentation, drawing, their templates and flat-XML forms, formula.
  { extensions: ['odt'], mediaType: 'application/vnd.oasis.opendocument.text' },
  { extensions: ['ott'], mediaType: 'application/vnd.oasis.opendocument.text-template' },
  { extensions: ['fodt'], mediaType: 'application/vnd.oasis.opendocument.text-flat-xml' },
  { extensions: ['ods'], mediaType: 'application/vnd.oasis.opendocument.spreadsheet' },
  { extensions: ['ots'], mediaType: 'application/vnd.oasis.opendocument.spreadsheet-template' },
  { extensions: ['fods'], mediaType: 'application/vnd.oasis.opendocument.spreadsheet-flat-xml' },
  { extensions: ['odp'], mediaType: 'application/vnd.oasis.opendocument.presentation' },
  { extensions: ['otp'], mediaType: 'application/vnd.oasis.opendocument.presentation-template' },
  { extensions: ['fodp'], mediaType: 'application/vnd.oasis.opendocument.presentation-flat-xml' },
  { extensions: ['odg'], mediaType: 'application/vnd.oasis.opendocument.graphics' },
  { extensions: ['otg'], mediaType: 'application/vnd.oasis.opendocument.graphics-template' },
  { extensions: ['fodg'], mediaType: 'application/vnd.oasis.opendocument.graphics-flat-xml' },
  { extensions: ['odf'], mediaType: 'application/vnd.oasis.opendocument.formula' },
  // Apple iWork.
  { extensions: ['pages'], mediaType: 'application/vnd.apple.pages', aliases: ['application/x-iwork-pages-sffpages'] },
  { extensions: ['numbers'], mediaType: 'application/vnd.apple.numbers', aliases: ['application/x-iwork-numbers-sffnumbers'] },
  { extensions: ['key'], mediaType: 'application/vnd.apple.keynote', aliases: ['application/x-iwork-keynote-sffkey'] },
  // Mail.
  { extensions: ['eml'], mediaType: 'message/rfc822' },
  { extensions: ['msg'], mediaType: 'application/vnd.ms-outlook' },
];

function kindsByExtension(): Record<string, FileKind> {
  const table: Record<string, FileKind> = {};
  for (const [rows, fileClass] of [
    [TEXT_KINDS, 'text'],
    [BINARY_KINDS, 'binary'],
  ] as const) {
    for (const row of rows) {
      const kind: FileKind = Object.freeze({ mediaType: row.mediaType, fileClass, aliases: Object.freeze([...(row.aliases ?? [])]) });
      for (const extension of row.extensions) table[extension] = kind;
    }
  }
  return Object.freeze(table);
}

/** Every accepted extension (lowercase, no dot) → its kind. */
export const FILE_KINDS: Readonly<Record<string, FileKind>> = kindsByExtension();

/** The type that says nothing about the bytes; normalized from the extension (rule 2). */
export const OCTET_STREAM = 'application/octet-stream';

// Canonical types win over aliases, so `application/vnd.ms-excel` (a `.csv` alias) names `.xls`.
const KIND_BY_MEDIA_TYPE: ReadonlyMap<string, FileKind> = (() => {
  const kinds = [...new Set(Object.values(FILE_KINDS))];
  const map = new Map<string, FileKind>(kinds.map((kind) => [kind.mediaType.toLowerCase(), kind]));
  for (const kind of kinds) for (const alias of kind.aliases) if (!map.has(alias)) map.set(alias, kind);
  return map;
})();

export type UnsupportedFamily = 'archive' | 'audio' | 'video' | 'executable';

const REFUSED_EXTENSIONS: Readonly<Record<UnsupportedFamily, readonly string[]>> = {
  archive: ['zip', 'tar', 'gz', 'tgz', 'bz2', 'xz', 'zst', '7z', 'rar', 'jar', 'iso', 'cab'],
  audio: ['mp3', 'wav', 'ogg', 'oga', 'opus', 'flac', 'm4a', 'aac', 'wma', 'aiff', 'mid', 'midi'],
  // `.mts` is TypeScript here, not an AVCHD video.
  video: ['mp4', 'm4v', 'mov', 'avi', 'mkv', 'webm', 'wmv', 'flv', 'mpg', 'mpeg', 'm2ts'],
  executable: ['exe', 'dll', 'so', 'dylib', 'bin', 'com', 'msi', 'dmg', 'deb', 'rpm', 'apk', 'wasm', 'class'],
};

const REFUSED_TYPES: Readonly<Record<UnsupportedFamily, readonly string[]>> = {
  archive: [
    'application/zip',
    'application/x-zip-compressed',
    'application/x-tar',
    'application/gzip',
    'application/x-gzip',
    'application/x-bzip2',
    'application/x-xz',
    'application/zstd',
    'application/x-7z-compressed',
    'application/vnd.rar',
    'application/x-rar-compressed',
    'application/java-archive',
  ],
  audio: [],
  video: [],
  executable: [
    'application/x-msdownload',
    'application/vnd.microsoft.portable-executable',
    'application/x-executable',
    'application/x-sharedlib',
    'application/x-mach-binary',
    'application/x-msi',
    'application/wasm',
  ],
};

const FAMILIES = Object.keys(REFUSED_EXTENSIONS) as UnsupportedFamily[];

/** The refused family of an extension that is not in `FILE_KINDS`, if any. */
export function familyOfExtension(extension: string): UnsupportedFamily | null {
  return FAMILIES.find((family) => REFUSED_EXTENSIONS[family].includes(extension)) ?? null;
}

/** The refused family of a declared type's essence, if any. */
export function familyOfMediaType(essence: string): UnsupportedFamily | null {
  if (essence.startsWith('audio/')) return 'audio';
  if (essence.startsWith('video/')) return 'video';
  return FAMILIES.find((family) => REFUSED_TYPES[family].includes(essence)) ?? null;
}

export type ResolvedKind = { ok: true; mediaType: string; fileClass: FileClass } | { ok: false; field: 'name' | 'contentType'; message: string };

/**
 * Rules 1-2: the kind of a file from its lowercase extension and the essence of its declared
 * type (`mediaTypeEssence`). `declared` is the caller's text, quoted in messages.
 */
export function resolveFileKind(extension: string, essence: string, declared: string): ResolvedKind {
  const kind = Object.hasOwn(FILE_KINDS, extension) ? FILE_KINDS[extension] : undefined;
  if (kind) {
    if (essence === OCTET_STREAM || agrees(kind, essence)) return { ok: true, mediaType: kind.mediaType, fileClass: kind.fileClass };
    return {
      ok: false,
      field: 'contentType',
      message: `${quote(declared)} does not match the .${truncated(extension)} extension (expected ${kind.mediaType})`,
    };
  }
  const byExtension = familyOfExtension(extension);
  if (byExtension) return { ok: false, field: 'name', message: `.${truncated(extension)} files are not supported (${byExtension})` };
  const byTypeFamily = familyOfMediaType(essence);
  if (byTypeFamily) return { ok: false, field: 'contentType', message: `${quote(declared)} is not supported (${byTypeFamily})` };
  const byType = KIND_BY_MEDIA_TYPE.get(essence);
  if (byType) return { ok: true, mediaType: byType.mediaType, fileClass: byType.fileClass };
  return {
    ok: false,
    field: 'contentType',
    message:
      essence === OCTET_STREAM
        ? `an unrecognized extension (.${truncated(extension)}) needs a specific supported type, not ${OCTET_STREAM}`
        : `${quote(declared)} is not a supported file type`,
  };
}

function agrees(kind: FileKind, essence: string): boolean {
  if (essence === kind.mediaType.toLowerCase() || kind.aliases.includes(essence)) return true;
  // `text/plain` is true of every text-class file; browsers often send it for .md, .csv or .ts.
  return kind.fileClass === 'text' && essence === 'text/plain';
}
