import { describe, expect, it } from 'vitest';
import {
  checkFileInputs,
  MAX_FILE_BYTES,
  MAX_FILES_PER_TURN,
  MAX_TURN_FILE_BYTES,
  NEUTRAL_FILES_MESSAGE,
  requiredSandboxCapabilities,
  sandboxCapabilityProblem,
  storedTypeProblem,
  isUploadRef,
  turnFileSetProblem,
  type AcceptedFile,
} from './file-input.ts';
import { FILE_KINDS } from './file-kinds.ts';

const item = (overrides: Record<string, unknown> = {}) => ({ name: 'notes.txt', contentType: 'text/plain', dataBase64: 'aGk=', ...overrides });

function acceptedFiles(files: unknown): AcceptedFile[] {
  const result = checkFileInputs(files);
  if (!result.ok) throw new Error(`expected acceptance, got ${result.violation.path}: ${result.violation.message}`);
  return result.files.filter((file): file is AcceptedFile => !isUploadRef(file));
}

function violationOf(files: unknown, options: { pathPrefix?: string } = {}) {
  const result = checkFileInputs(files, options);
  if (result.ok) throw new Error('expected a violation');
  return result.violation;
}

/** Canonical base64 of `bytes` zero bytes, built without encoding anything. */
function zeros(bytes: number): string {
  const tail = ['', 'AA==', 'AAA='][bytes % 3]!;
  return 'A'.repeat(Math.floor(bytes / 3) * 4) + tail;
}

describe('limits', () => {
  it('match spec 3 "Limits"', () => {
    expect([MAX_FILES_PER_TURN, MAX_FILE_BYTES, MAX_TURN_FILE_BYTES]).toEqual([8, 10_485_760, 20_971_520]);
  });

  it('the neutral message for a turn of files without text is fixed, short and not blank', () => {
    expect(NEUTRAL_FILES_MESSAGE).toBe('Attached files.');
  });
});

describe('the files array', () => {
  it.each([[undefined], [null], [{}], ['files'], [3], [{ 0: item(), length: 1 }]])('%j is not an array', (files) => {
    expect(violationOf(files)).toEqual({ path: 'files', message: 'must be an array' });
  });

  it('an empty array means no files', () => {
    expect(acceptedFiles([])).toEqual([]);
  });

  it('holds 8 files, not 9', () => {
    const files = (count: number) => Array.from({ length: count }, (_, index) => item({ name: `f${index}.txt` }));
    expect(acceptedFiles(files(8))).toHaveLength(8);
    expect(violationOf(files(9))).toEqual({ path: 'files', message: 'must hold at most 8 files (9 given)' });
  });

  it('paths start with pathPrefix', () => {
    expect(violationOf('x', { pathPrefix: 'body.files' }).path).toBe('body.files');
    expect(violationOf([item(), item({ name: 'a/b.txt' })], { pathPrefix: 'body.files' }).path).toBe('body.files.1.name');
    expect(violationOf([item(), item({ name: 'NOTES.txt' })], { pathPrefix: 'body.files' }).message).toContain('body.files.0');
  });
});

describe('file items are strict objects of three strings', () => {
  it.each([[null], [[]], ['notes.txt'], [42], [true]])('%j is not an item', (value) => {
    expect(violationOf([item(), value])).toEqual({ path: 'files.1', message: 'must be an object with name, contentType and dataBase64' });
  });

  it.each([
    [{ ...item(), sha256: 'abc' }, 'files.0.sha256'],
    [{ ...item(), storageKey: 'k' }, 'files.0.storageKey'],
    [{ ...item(), size: 2 }, 'files.0.size'],
    [JSON.parse('{"name":"a.txt","contentType":"text/plain","dataBase64":"","__proto__":{}}'), 'files.0.__proto__'],
    [{ contentType: 'text/plain', extra: 1 }, 'files.0.extra'],
  ])('an unknown field is refused before anything else (%#)', (value, path) => {
    expect(violationOf([value])).toEqual({ path, message: 'is not a field of a file input (allowed: name, contentType, dataBase64)' });
  });

  it.each(['name', 'contentType', 'dataBase64'])('%s is required', (field) => {
    const value: Record<string, unknown> = item();
    delete value[field];
    expect(violationOf([value])).toEqual({ path: `files.0.${field}`, message: 'is required' });
    expect(violationOf([item({ [field]: undefined })])).toEqual({ path: `files.0.${field}`, message: 'is required' });
  });

  it.each([
    ['name', 1],
    ['name', null],
    ['contentType', ['text/plain']],
    ['contentType', null],
    ['dataBase64', { data: 'aGk=' }],
    ['dataBase64', 0],
  ])('%s must be a string (%j)', (field, value) => {
    expect(violationOf([item({ [field]: value })])).toEqual({ path: `files.0.${field}`, message: 'must be a string' });
  });

  it('fields are checked in order: name, contentType, dataBase64', () => {
    expect(violationOf([item({ name: 1, contentType: 2, dataBase64: 3 })]).path).toBe('files.0.name');
    expect(violationOf([item({ name: 'a/b.txt', contentType: 'bad', dataBase64: '!' })]).path).toBe('files.0.name');
    expect(violationOf([item({ contentType: 'bad', dataBase64: '!' })]).path).toBe('files.0.contentType');
  });

  it('the first failing item wins', () => {
    expect(violationOf([item(), item({ name: 'b.txt', dataBase64: '!' }), item({ name: '' })]).path).toBe('files.1.dataBase64');
  });
});

describe('name', () => {
  it.each([
    ['notes.txt'],
    ['My Notes (v2).final.TXT'],
    ['résumé.txt'],
    ['日本語のメモ.txt'],
    ['emoji 😀.txt'],
    ['.env.json'],
    ['CON.txt'],
    ['a:b.txt'],
    ['a.txt'],
    [`${'a'.repeat(251)}.txt`], // 255 bytes
    [`${'é'.repeat(125)}a.txt`], // 250 + 5 = 255 bytes
    [`${'😀'.repeat(62)}a.txt`], // 248 + 5 = 253 bytes
  ])('%j is a plain filename', (name) => {
    const contentType = name.endsWith('.json') ? 'application/json' : 'text/plain';
    expect(acceptedFiles([item({ name, contentType })])[0]!.name).toBe(name);
  });

  it.each([
    ['', 'must not be empty'],
    [`${'a'.repeat(252)}.txt`, 'must be at most 255 bytes in UTF-8'],
    [`${'é'.repeat(126)}.txt`, 'must be at most 255 bytes in UTF-8'],
    [`${'😀'.repeat(63)}.txt`, 'must be at most 255 bytes in UTF-8'],
    ['a'.repeat(100_000), 'must be at most 255 bytes in UTF-8'],
    ['bad\ud800.txt', 'must be well-formed Unicode (it has an unpaired surrogate)'],
    ['a\u0000.txt', 'must not contain control characters'],
    ['a\n.txt', 'must not contain control characters'],
    ['a\t.txt', 'must not contain control characters'],
    ['a\u001f.txt', 'must not contain control characters'],
    ['a\u007f.txt', 'must not contain control characters'],
    ['a\u0085.txt', 'must not contain control characters'],
    ['invoice\u202Efdp.txt', 'must not contain bidirectional control characters'],
    ['a\u2066.txt', 'must not contain bidirectional control characters'],
    ['dir/notes.txt', 'must be a plain filename, not a path (no / or \\)'],
    ['dir\\notes.txt', 'must be a plain filename, not a path (no / or \\)'],
    ['../notes.txt', 'must be a plain filename, not a path (no / or \\)'],
    ['/etc/passwd.txt', 'must be a plain filename, not a path (no / or \\)'],
    ['.', 'must be a filename, not . or ..'],
    ['..', 'must be a filename, not . or ..'],
    [' notes.txt', 'must not start or end with whitespace'],
    ['notes.txt ', 'must not start or end with whitespace'],
    ['notes.txt\u00a0', 'must not start or end with whitespace'],
    ['\u3000notes.txt', 'must not start or end with whitespace'],
    ['README', 'must have an extension (such as .txt or .pdf)'],
    ['.env', 'must have an extension (such as .txt or .pdf)'],
    ['notes.', 'must have an extension (such as .txt or .pdf)'],
    ['...', 'must have an extension (such as .txt or .pdf)'],
  ])('%j is refused', (name, message) => {
    expect(violationOf([item({ name })])).toEqual({ path: 'files.0.name', message });
  });

  it.each([
    ['notes.txt', 'notes.txt'],
    ['Notes.TXT', 'notes.txt'],
    ['REPORT.PDF', 'report.pdf'],
    ['caf\u00e9.txt', 'cafe\u0301.txt'], // NFC and NFD spellings of café.txt
  ])('%j and %j are duplicates (compared ignoring case and normalization)', (first, second) => {
    const type = first.toLowerCase().endsWith('.pdf') ? 'application/pdf' : 'text/plain';
    const files = [item({ name: 'other.txt' }), item({ name: first, contentType: type }), item({ name: second, contentType: type })];
    expect(violationOf(files)).toEqual({
      path: 'files.2.name',
      message: `${JSON.stringify(second)} is already the name of files.1 (names are compared ignoring case)`,
    });
  });

  it('a duplicate is reported before its other fields', () => {
    expect(violationOf([item(), item({ contentType: 'bad', dataBase64: '!' })]).path).toBe('files.1.name');
  });

  it('names that differ otherwise are distinct', () => {
    const names = ['notes.txt', 'notes.md', 'notes (1).txt', 'note.txt', 'notes.txt.txt'];
    expect(acceptedFiles(names.map((name) => item({ name, contentType: 'application/octet-stream' }))).map((file) => file.name)).toEqual(names);
  });
});

describe('contentType', () => {
  it.each([
    ['notes.txt', 'text/plain', 'text/plain', 'text'],
    ['notes.txt', 'TEXT/PLAIN; charset=UTF-8', 'text/plain', 'text'],
    ['notes.md', 'text/plain', 'text/markdown', 'text'],
    ['notes.MD', 'text/markdown; variant=GFM', 'text/markdown', 'text'],
    ['data.json', 'application/json; charset=utf-8', 'application/json', 'text'],
    ['feed.xml', 'text/xml', 'application/xml', 'text'],
    ['deploy.yml', 'application/x-yaml', 'application/yaml', 'text'],
    ['app.ts', 'application/typescript', 'text/typescript', 'text'],
    ['app.tsx', 'application/octet-stream', 'text/typescript', 'text'],
    ['photo.JPG', 'image/jpeg', 'image/jpeg', 'binary'],
    ['scan.pdf', 'Application/PDF', 'application/pdf', 'binary'],
    ['scan.pdf', 'application/octet-stream', 'application/pdf', 'binary'],
    ['book.xlsb', 'APPLICATION/VND.MS-EXCEL.SHEET.BINARY.MACROENABLED.12', 'application/vnd.ms-excel.sheet.binary.macroEnabled.12', 'binary'],
    ['main.rs', 'text/plain', 'text/plain', 'text'],
    ['photo.jfif', 'image/jpeg', 'image/jpeg', 'binary'],
    ['install.sh', 'text/x-shellscript', 'text/x-shellscript', 'text'],
  ])('%s declared %j is accepted as %s (%s)', (name, contentType, normalized, fileClass) => {
    expect(acceptedFiles([item({ name, contentType })])).toEqual([{ name, contentType: normalized, fileClass, sizeBytes: 2, dataBase64: 'aGk=' }]);
  });

  it.each(Object.entries(FILE_KINDS))('.%s is accepted with its canonical type and with application/octet-stream', (extension, kind) => {
    for (const [name, contentType] of [
      [`file.${extension}`, kind.mediaType],
      [`FILE.${extension.toUpperCase()}`, 'application/octet-stream'],
    ] as const) {
      expect(acceptedFiles([item({ name, contentType })])[0]).toMatchObject({ contentType: kind.mediaType, fileClass: kind.fileClass });
    }
  });

  it.each([
    ['', '"" is not a media type (type/subtype)'],
    ['png', '"png" is not a media type (type/subtype)'],
    ['text/plain; charset', '"text/plain; charset" is not a media type (type/subtype)'],
    [' text/plain', '" text/plain" is not a media type (type/subtype)'],
    ['text/plain\u0000', '"text/plain\\u0000" is not a media type (type/subtype)'],
  ])('%j is refused as syntax', (contentType, message) => {
    expect(violationOf([item({ contentType })])).toEqual({ path: 'files.0.contentType', message });
  });

  it.each([
    ['a.png', 'image/jpeg', '"image/jpeg" does not match the .png extension (expected image/png)'],
    ['a.jpeg', 'image/png', '"image/png" does not match the .jpeg extension (expected image/jpeg)'],
    ['a.ts', 'video/mp2t', '"video/mp2t" does not match the .ts extension (expected text/typescript)'],
    ['a.mts', 'video/MP2T', '"video/MP2T" does not match the .mts extension (expected text/typescript)'],
    [
      'a.docx',
      'application/pdf',
      '"application/pdf" does not match the .docx extension (expected application/vnd.openxmlformats-officedocument.wordprocessingml.document)',
    ],
    ['a.pdf', 'text/plain; charset=utf-8', '"text/plain; charset=utf-8" does not match the .pdf extension (expected application/pdf)'],
    ['a.main.rs', 'text/rust', '"text/rust" is not a supported file type'],
    ['a.dat', 'application/octet-stream', 'an unrecognized extension (.dat) needs a specific supported type, not application/octet-stream'],
    ['song.m4b', 'audio/mp4', '"audio/mp4" is not supported (audio)'],
    ['clip.ogv', 'video/ogg', '"video/ogg" is not supported (video)'],
    ['bundle.pkg', 'application/zip', '"application/zip" is not supported (archive)'],
    ['tool.elf', 'application/x-executable', '"application/x-executable" is not supported (executable)'],
  ])('%s declared %j is refused on contentType', (name, contentType, message) => {
    expect(violationOf([item({ name, contentType })])).toEqual({ path: 'files.0.contentType', message });
  });

  it.each([
    ['bundle.zip', 'application/zip', 'archive'],
    ['bundle.tar', 'application/octet-stream', 'archive'],
    ['bundle.gz', 'text/plain', 'archive'],
    ['bundle.7z', 'application/x-7z-compressed', 'archive'],
    ['bundle.rar', 'application/vnd.rar', 'archive'],
    ['song.mp3', 'audio/mpeg', 'audio'],
    ['clip.mp4', 'video/mp4', 'video'],
    ['clip.MOV', 'application/octet-stream', 'video'],
    ['setup.exe', 'application/x-msdownload', 'executable'],
    ['lib.so', 'application/octet-stream', 'executable'],
    ['lib.dll', 'application/pdf', 'executable'],
    ['firmware.bin', 'application/octet-stream', 'executable'],
  ])('%s (declared %s) is refused on name: %s', (name, contentType, family) => {
    const extension = name.slice(name.lastIndexOf('.') + 1).toLowerCase();
    expect(violationOf([item({ name, contentType })])).toEqual({ path: 'files.0.name', message: `.${extension} files are not supported (${family})` });
  });

  it('echoes at most 100 characters of a declared type', () => {
    const { message } = violationOf([item({ contentType: 'x'.repeat(5_000) })]);
    expect(message).toBe(`"${'x'.repeat(100)}…" is not a media type (type/subtype)`);
  });
});

describe('dataBase64', () => {
  it.each([
    ['', 0],
    ['AA==', 1],
    ['AAA=', 2],
    ['AAAA', 3],
    ['aGk=', 2],
    ['aGVsbG8=', 5],
    ['aGVsbG8gd29ybGQ=', 11],
    ['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/', 48],
    ['/w==', 1],
    ['//8=', 2],
  ])('%j is canonical and decodes to %i bytes', (dataBase64, sizeBytes) => {
    expect(acceptedFiles([item({ dataBase64 })])[0]).toMatchObject({ sizeBytes, dataBase64 });
  });

  it('an empty file is accepted for binary kinds too', () => {
    expect(acceptedFiles([item({ name: 'blank.png', contentType: 'image/png', dataBase64: '' })])[0]).toMatchObject({ sizeBytes: 0, fileClass: 'binary' });
  });

  it.each([
    ['AB==', 'must be canonical: the unused bits before the = padding must be zero'],
    ['AAB=', 'must be canonical: the unused bits before the = padding must be zero'],
    ['aGl=', 'must be canonical: the unused bits before the = padding must be zero'],
    ['aGVsbG9=', 'must be canonical: the unused bits before the = padding must be zero'],
    ['aGk', 'must be padded with = to a multiple of 4 characters'],
    ['aGVsbG8', 'must be padded with = to a multiple of 4 characters'],
    ['AAAAA', 'must be padded with = to a multiple of 4 characters'],
    ['AA=', 'must be padded with = to a multiple of 4 characters'],
    ['=', 'must be padded with = to a multiple of 4 characters'],
    ['A===', 'may hold = only as padding at the end (offset 1)'],
    ['====', 'may hold = only as padding at the end (offset 0)'],
    ['=AAA', 'may hold = only as padding at the end (offset 0)'],
    ['AA=A', 'may hold = only as padding at the end (offset 2)'],
    ['AA==AA==', 'may hold = only as padding at the end (offset 2)'],
    ['aGk=\n', 'must not contain whitespace or line breaks (offset 4)'],
    ['aG k', 'must not contain whitespace or line breaks (offset 2)'],
    ['aGVs\r\nbG8=', 'must not contain whitespace or line breaks (offset 4)'],
    ['\taGk=', 'must not contain whitespace or line breaks (offset 0)'],
    ['a-_k', 'must use the standard alphabet with + and /, not base64url - and _ (offset 1)'],
    ['__8=', 'must use the standard alphabet with + and /, not base64url - and _ (offset 0)'],
    ['data:text/plain;base64,aGk=', 'must be bare base64, not a data: URL'],
    ['DATA:;base64,aGk=', 'must be bare base64, not a data: URL'],
    ['aGé=', 'holds a character outside the base64 alphabet (offset 2)'],
    ['aG*k', 'holds a character outside the base64 alphabet (offset 2)'],
    ['aGk\u0000', 'holds a character outside the base64 alphabet (offset 3)'],
  ])('%j is refused', (dataBase64, message) => {
    expect(violationOf([item({ dataBase64 })])).toEqual({ path: 'files.0.dataBase64', message });
  });
});

describe('sizes', () => {
  const big = (name: string, bytes: number) => item({ name, contentType: 'application/octet-stream', dataBase64: zeros(bytes) });

  it('the zeros helper builds canonical base64 of the asked size', () => {
    for (const bytes of [0, 1, 2, 3, 4, 5, 300]) expect(acceptedFiles([big('a.bin.txt', bytes)])[0]!.sizeBytes).toBe(bytes);
  });

  it('a file of exactly 10 MiB is accepted; one byte more is refused', () => {
    expect(acceptedFiles([big('max.pdf', MAX_FILE_BYTES)])[0]!.sizeBytes).toBe(MAX_FILE_BYTES);
    expect(violationOf([big('over.pdf', MAX_FILE_BYTES + 1)])).toEqual({
      path: 'files.0.dataBase64',
      message: '"over.pdf" must be at most 10,485,760 bytes (10 MiB) once decoded',
    });
  });

  it('a string too long for 10 MiB is refused by its length, valid or not', () => {
    const tooLong = `${'!'.repeat(14_000_000)}`;
    expect(violationOf([item({ dataBase64: tooLong })])).toEqual({
      path: 'files.0.dataBase64',
      message: '"notes.txt" must be at most 10,485,760 bytes (10 MiB) once decoded',
    });
  });

  it('two files of 10 MiB (20 MiB in all) are accepted; one byte more in a third is refused on files', () => {
    const two = [big('a.pdf', MAX_FILE_BYTES), big('b.pdf', MAX_FILE_BYTES)];
    expect(acceptedFiles(two).map((file) => file.sizeBytes)).toEqual([MAX_FILE_BYTES, MAX_FILE_BYTES]);
    expect(violationOf([...two, big('c.txt', 1)])).toEqual({
      path: 'files',
      message: 'must total at most 20,971,520 bytes (20 MiB); files 0-2 already decode to 20,971,521 bytes',
    });
  });

  it('eight files totalling exactly 20 MiB are accepted; one byte more is refused', () => {
    const share = MAX_TURN_FILE_BYTES / 8;
    const files = Array.from({ length: 8 }, (_, index) => big(`f${index}.pdf`, share));
    expect(acceptedFiles(files).reduce((sum, file) => sum + file.sizeBytes, 0)).toBe(MAX_TURN_FILE_BYTES);
    files[7] = big('f7.pdf', share + 1);
    expect(violationOf(files).path).toBe('files');
  });

  it('the total is checked after each item, before later items', () => {
    const files = [big('a.pdf', MAX_FILE_BYTES), big('b.pdf', MAX_FILE_BYTES), big('c.pdf', 1), item({ name: 'a/b.txt' })];
    expect(violationOf(files).path).toBe('files');
  });
});

describe('accepted files', () => {
  it('keep the name and data as given, with the canonical type, class and decoded size', () => {
    const files = [
      item({ name: 'Notes.md', contentType: 'text/plain; charset=utf-8' }),
      item({ name: 'scan.PDF', contentType: 'application/octet-stream', dataBase64: 'JVBERi0=' }),
    ];
    expect(acceptedFiles(files)).toEqual([
      { name: 'Notes.md', contentType: 'text/markdown', fileClass: 'text', sizeBytes: 2, dataBase64: 'aGk=' },
      { name: 'scan.PDF', contentType: 'application/pdf', fileClass: 'binary', sizeBytes: 5, dataBase64: 'JVBERi0=' },
    ]);
  });
});

describe('messages never carry the data', () => {
  const SECRET = 'TOPSECRET';
  it.each([
    ['bad padding length', item({ dataBase64: `${SECRET}DATA` })],
    ['whitespace', item({ dataBase64: `${SECRET}DAT\n` })],
    ['url-safe alphabet', item({ dataBase64: `${SECRET}-DA=` })],
    ['data URL', item({ dataBase64: `data:text/plain;base64,${SECRET}DAT` })],
    ['non-canonical bits', item({ dataBase64: `${SECRET}DATAAB=` })],
    ['too large', item({ dataBase64: `${SECRET}${'A'.repeat(14_000_000)}` })],
    ['bad name', item({ name: 'a/b.txt', dataBase64: `${SECRET}DAT=` })],
    ['bad type', item({ contentType: 'image/png', dataBase64: `${SECRET}DAT=` })],
    ['unknown field holding data', { ...item(), data: `${SECRET}DAT=` }],
  ])('%s', (_, value) => {
    const violation = violationOf([value]);
    expect(JSON.stringify(violation)).not.toContain(SECRET);
    expect(violation.message.length).toBeLessThan(300);
  });
});

describe('sandbox capabilities (rule 3)', () => {
  const text = { name: 'notes.txt', fileClass: 'text' } as const;
  const binary = { name: 'scan.pdf', fileClass: 'binary' } as const;
  const sandbox = (enabled: boolean, ...capabilities: string[]) => ({ enabled, capabilities });

  it('text needs filesystem_read or shell; binary needs shell; no files need nothing', () => {
    expect(requiredSandboxCapabilities([])).toBeNull();
    expect(requiredSandboxCapabilities([text])).toEqual({ fileClass: 'text', anyOf: ['filesystem_read', 'shell'] });
    expect(requiredSandboxCapabilities([text, binary])).toEqual({ fileClass: 'binary', anyOf: ['shell'] });
  });

  const TEXT_REFUSED = "text files need the sandbox capability filesystem_read or shell, which this agent version's sandbox does not enable";
  const BINARY_REFUSED = `binary files such as "scan.pdf" need the sandbox capability shell, which this agent version's sandbox does not enable`;

  it.each([
    ['no files, no sandbox', [], sandbox(false), null],
    ['text, filesystem_read only', [text], sandbox(true, 'filesystem_read'), null],
    ['text, shell only', [text], sandbox(true, 'shell'), null],
    ['text, both', [text], sandbox(true, 'filesystem_read', 'shell'), null],
    ['text, neither', [text], sandbox(true, 'filesystem_write', 'browser'), TEXT_REFUSED],
    ['text, no capabilities', [text], sandbox(true), TEXT_REFUSED],
    [
      'text, sandbox disabled',
      [text],
      sandbox(false, 'filesystem_read', 'shell'),
      'text files need a sandbox with filesystem_read or shell, and this agent version has no sandbox enabled',
    ],
    ['binary, shell', [binary], sandbox(true, 'shell'), null],
    ['binary, filesystem_read only', [binary], sandbox(true, 'filesystem_read'), BINARY_REFUSED],
    ['text and binary, filesystem_read only', [text, binary], sandbox(true, 'filesystem_read', 'filesystem_write'), BINARY_REFUSED],
    ['text and binary, shell', [text, binary], sandbox(true, 'shell'), null],
    [
      'binary, sandbox disabled',
      [binary],
      sandbox(false, 'shell'),
      'binary files such as "scan.pdf" need a sandbox with shell, and this agent version has no sandbox enabled',
    ],
  ] as const)('%s', (_, files, box, expected) => {
    expect(sandboxCapabilityProblem(files, box)).toBe(expected);
  });

  it('works on the output of checkFileInputs', () => {
    const files = acceptedFiles([item(), item({ name: 'photo.png', contentType: 'image/png' })]);
    expect(sandboxCapabilityProblem(files, sandbox(true, 'filesystem_read'))).toContain('"photo.png"');
    expect(sandboxCapabilityProblem(files, sandbox(true, 'shell'))).toBeNull();
  });
});

describe('storedTypeProblem', () => {
  it('accepts what the rules produced and refuses a type or class that no longer matches the name', () => {
    expect(storedTypeProblem({ filename: 'a.md', contentType: 'text/markdown', fileClass: 'text' })).toBeNull();
    expect(storedTypeProblem({ filename: 'p.png', contentType: 'image/png', fileClass: 'binary' })).toBeNull();
    expect(storedTypeProblem({ filename: 'p.png', contentType: 'text/plain', fileClass: 'text' })).toMatch(/no longer matches/);
    expect(storedTypeProblem({ filename: 'p.png', contentType: 'image/png', fileClass: 'text' })).toMatch(/no longer matches/);
    expect(storedTypeProblem({ filename: 'noext', contentType: 'text/plain', fileClass: 'text' })).toMatch(/no usable extension/);
    expect(storedTypeProblem({ filename: 'a.zip', contentType: 'application/zip', fileClass: 'binary' })).toMatch(/no longer matches/);
  });
});

describe('upload references', () => {
  const id = '0b0a0a0a-1111-4222-8333-444455556666';
  it('accepts {uploadId} items beside inline files, in order, and refuses anything else on them', () => {
    const result = checkFileInputs([item(), { uploadId: id.toUpperCase() }]);
    expect(result).toMatchObject({ ok: true, files: [{ name: 'notes.txt' }, { uploadId: id }] });
    expect(violationOf([{ uploadId: id, name: 'x.txt' }])).toEqual({
      path: 'files.0.name',
      message: 'is not a field of an upload reference (allowed: uploadId alone)',
    });
    expect(violationOf([{ uploadId: 'nope' }])).toEqual({ path: 'files.0.uploadId', message: 'must be the id of an upload' });
  });

  it('checks names and the total across resolved files', () => {
    const path = (index: number) => `files.${index}`;
    expect(
      turnFileSetProblem(
        [
          { name: 'a.txt', sizeBytes: 1 },
          { name: 'b.txt', sizeBytes: 1 },
        ],
        path,
      ),
    ).toBeNull();
    expect(
      turnFileSetProblem(
        [
          { name: 'a.txt', sizeBytes: 1 },
          { name: 'A.TXT', sizeBytes: 1 },
        ],
        path,
      )?.path,
    ).toBe('files.1');
    expect(
      turnFileSetProblem(
        [
          { name: 'a.txt', sizeBytes: 15 * 1024 * 1024 },
          { name: 'b.txt', sizeBytes: 6 * 1024 * 1024 },
        ],
        path,
      )?.message,
    ).toContain('20 MiB');
  });
});
