import { describe, expect, it } from 'vitest';
import { familyOfExtension, familyOfMediaType, FILE_KINDS, resolveFileKind } from './file-kinds.ts';
import { mediaTypeEssence } from './media-type.ts';

// Spec 2 "File input item" rule 1, extension by extension, with the type each must normalize to.
const SPEC_TEXT: ReadonlyArray<[string, string]> = [
  ['txt', 'text/plain'],
  ['log', 'text/plain'],
  ['md', 'text/markdown'],
  ['markdown', 'text/markdown'],
  ['csv', 'text/csv'],
  ['tsv', 'text/tab-separated-values'],
  ['html', 'text/html'],
  ['htm', 'text/html'],
  ['css', 'text/css'],
  ['json', 'application/json'],
  ['jsonld', 'application/ld+json'],
  ['ndjson', 'application/x-ndjson'],
  ['jsonl', 'application/x-ndjson'],
  ['xml', 'application/xml'],
  ['yaml', 'application/yaml'],
  ['yml', 'application/yaml'],
  ['js', 'text/javascript'],
  ['mjs', 'text/javascript'],
  ['cjs', 'text/javascript'],
  ['ts', 'text/typescript'],
  ['mts', 'text/typescript'],
  ['cts', 'text/typescript'],
  ['tsx', 'text/typescript'],
];

const SPEC_IMAGES_AND_DOCUMENTS: ReadonlyArray<[string, string]> = [
  ['png', 'image/png'],
  ['jpg', 'image/jpeg'],
  ['jpeg', 'image/jpeg'],
  ['webp', 'image/webp'],
  ['gif', 'image/gif'],
  ['pdf', 'application/pdf'],
  ['rtf', 'application/rtf'],
  ['pages', 'application/vnd.apple.pages'],
  ['numbers', 'application/vnd.apple.numbers'],
  ['key', 'application/vnd.apple.keynote'],
  ['eml', 'message/rfc822'],
  ['msg', 'application/vnd.ms-outlook'],
];

const SPEC_OFFICE: ReadonlyArray<[string, string]> = [
  ['doc', 'application/msword'],
  ['dot', 'application/msword'],
  ['docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
  ['docm', 'application/vnd.ms-word.document.macroEnabled.12'],
  ['dotx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.template'],
  ['dotm', 'application/vnd.ms-word.template.macroEnabled.12'],
  ['xls', 'application/vnd.ms-excel'],
  ['xlt', 'application/vnd.ms-excel'],
  ['xla', 'application/vnd.ms-excel'],
  ['xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
  ['xlsm', 'application/vnd.ms-excel.sheet.macroEnabled.12'],
  ['xlsb', 'application/vnd.ms-excel.sheet.binary.macroEnabled.12'],
  ['xlam', 'application/vnd.ms-excel.addin.macroEnabled.12'],
  ['xltx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.template'],
  ['xltm', 'application/vnd.ms-excel.template.macroEnabled.12'],
  ['ppt', 'application/vnd.ms-powerpoint'],
  ['pot', 'application/vnd.ms-powerpoint'],
  ['pps', 'application/vnd.ms-powerpoint'],
  ['pptx', 'application/vnd.openxmlformats-officedocument.presentationml.presentation'],
  ['pptm', 'application/vnd.ms-powerpoint.presentation.macroEnabled.12'],
  ['ppsx', 'application/vnd.openxmlformats-officedocument.presentationml.slideshow'],
  ['ppsm', 'application/vnd.ms-powerpoint.slideshow.macroEnabled.12'],
  ['potx', 'application/vnd.openxmlformats-officedocument.presentationml.template'],
  ['potm', 'application/vnd.ms-powerpoint.template.macroEnabled.12'],
];

const SPEC_OPEN_DOCUMENT: ReadonlyArray<[string, string]> = [
  ['odt', 'application/vnd.oasis.opendocument.text'],
  ['ott', 'application/vnd.oasis.opendocument.text-template'],
  ['fodt', 'application/vnd.oasis.opendocument.text-flat-xml'],
  ['ods', 'application/vnd.oasis.opendocument.spreadsheet'],
  ['ots', 'application/vnd.oasis.opendocument.spreadsheet-template'],
  ['fods', 'application/vnd.oasis.opendocument.spreadsheet-flat-xml'],
  ['odp', 'application/vnd.oasis.opendocument.presentation'],
  ['otp', 'application/vnd.oasis.opendocument.presentation-template'],
  ['fodp', 'application/vnd.oasis.opendocument.presentation-flat-xml'],
  ['odg', 'application/vnd.oasis.opendocument.graphics'],
  ['otg', 'application/vnd.oasis.opendocument.graphics-template'],
  ['fodg', 'application/vnd.oasis.opendocument.graphics-flat-xml'],
  ['odf', 'application/vnd.oasis.opendocument.formula'],
];

const SPEC_BINARY = [...SPEC_IMAGES_AND_DOCUMENTS, ...SPEC_OFFICE, ...SPEC_OPEN_DOCUMENT];

const accepted = (mediaType: string, fileClass: string) => ({ ok: true, mediaType, fileClass });
const resolve = (extension: string, declared: string) => resolveFileKind(extension, mediaTypeEssence(declared)!, declared);

describe('the kinds table', () => {
  it('lists the 24 office and 13 OpenDocument extensions of the spec', () => {
    expect(new Set(SPEC_OFFICE.map(([extension]) => extension)).size).toBe(24);
    expect(new Set(SPEC_OPEN_DOCUMENT.map(([extension]) => extension)).size).toBe(13);
  });

  it.each(SPEC_TEXT)('.%s is text with canonical type %s', (extension, mediaType) => {
    expect(FILE_KINDS[extension]).toMatchObject({ mediaType, fileClass: 'text' });
  });

  it.each(SPEC_BINARY)('.%s is binary with canonical type %s', (extension, mediaType) => {
    expect(FILE_KINDS[extension]).toMatchObject({ mediaType, fileClass: 'binary' });
  });

  it.each([
    ['ini', 'text/plain'],
    ['toml', 'application/toml'],
    ['sql', 'application/sql'],
    ['py', 'text/x-python'],
    ['sh', 'text/x-shellscript'],
    ['bash', 'text/x-shellscript'],
    ['jsx', 'text/javascript'],
  ])('the extra plain-text kind .%s is text (%s)', (extension, mediaType) => {
    expect(FILE_KINDS[extension]).toMatchObject({ mediaType, fileClass: 'text' });
  });

  it('keys are lowercase extensions without a dot, and no refused extension is accepted', () => {
    for (const extension of Object.keys(FILE_KINDS)) {
      expect(extension).toMatch(/^[a-z0-9]+$/);
      expect(familyOfExtension(extension)).toBeNull();
    }
  });

  it('is frozen', () => {
    expect(Object.isFrozen(FILE_KINDS)).toBe(true);
    expect(Object.isFrozen(FILE_KINDS.png)).toBe(true);
  });
});

describe('resolveFileKind: declared types agree with known extensions', () => {
  const all = [...SPEC_TEXT.map(([e, t]) => [e, t, 'text'] as const), ...SPEC_BINARY.map(([e, t]) => [e, t, 'binary'] as const)];

  it.each(all)('.%s accepts its canonical type %s', (extension, mediaType, fileClass) => {
    expect(resolve(extension, mediaType)).toEqual(accepted(mediaType, fileClass));
  });

  it.each(all)('.%s accepts application/octet-stream, normalized to %s', (extension, mediaType, fileClass) => {
    expect(resolve(extension, 'application/octet-stream')).toEqual(accepted(mediaType, fileClass));
  });

  it.each(all)('.%s accepts %s in upper case and with parameters', (extension, mediaType, fileClass) => {
    expect(resolve(extension, `${mediaType.toUpperCase()}; charset="x"`)).toEqual(accepted(mediaType, fileClass));
  });

  it.each([
    ['xml', 'text/xml', 'application/xml'],
    ['yaml', 'application/x-yaml', 'application/yaml'],
    ['yml', 'text/yaml', 'application/yaml'],
    ['yaml', 'text/x-yaml', 'application/yaml'],
    ['js', 'application/javascript', 'text/javascript'],
    ['ts', 'application/typescript', 'text/typescript'],
    ['md', 'text/x-markdown', 'text/markdown'],
    ['json', 'text/json', 'application/json'],
    ['jsonl', 'application/jsonl', 'application/x-ndjson'],
    ['csv', 'application/vnd.ms-excel', 'text/csv'],
    ['sh', 'application/x-sh', 'text/x-shellscript'],
  ])('.%s accepts the text alias %s as %s', (extension, declared, mediaType) => {
    expect(resolve(extension, declared)).toEqual(accepted(mediaType, 'text'));
  });

  it.each([
    ['rtf', 'text/rtf', 'application/rtf'],
    ['jpg', 'image/jpg', 'image/jpeg'],
    ['pdf', 'application/x-pdf', 'application/pdf'],
    ['pages', 'application/x-iwork-pages-sffpages', 'application/vnd.apple.pages'],
    ['numbers', 'application/x-iwork-numbers-sffnumbers', 'application/vnd.apple.numbers'],
    ['key', 'application/x-iwork-keynote-sffkey', 'application/vnd.apple.keynote'],
    ['xlsb', 'application/vnd.ms-excel.sheet.binary.macroenabled.12', 'application/vnd.ms-excel.sheet.binary.macroEnabled.12'],
  ])('.%s accepts the binary alias %s as %s', (extension, declared, mediaType) => {
    expect(resolve(extension, declared)).toEqual(accepted(mediaType, 'binary'));
  });

  it.each(SPEC_TEXT)('the text extension .%s also accepts text/plain (normalized to %s)', (extension, mediaType) => {
    expect(resolve(extension, 'text/plain')).toEqual(accepted(mediaType, 'text'));
  });

  it.each([
    ['png', 'image/jpeg'],
    ['jpg', 'image/png'],
    ['png', 'text/plain'],
    ['pdf', 'text/plain'],
    ['ts', 'video/mp2t'],
    ['mts', 'video/mp2t'],
    ['json', 'application/xml'],
    ['md', 'text/csv'],
    ['docx', 'application/msword'],
    ['xlsx', 'application/vnd.ms-excel'],
    ['odt', 'application/vnd.oasis.opendocument.text-template'],
    ['fodt', 'application/xml'],
    ['eml', 'text/plain'],
    ['csv', 'application/zip'],
    ['txt', 'application/pdf'],
  ])('.%s declared %s is refused on contentType', (extension, declared) => {
    const result = resolve(extension, declared);
    expect(result).toMatchObject({ ok: false, field: 'contentType' });
    expect(result.ok || result.message).toContain(`"${declared}" does not match the .${extension} extension`);
  });
});

describe('resolveFileKind: refused families', () => {
  it.each([
    ['zip', 'archive'],
    ['tar', 'archive'],
    ['gz', 'archive'],
    ['tgz', 'archive'],
    ['7z', 'archive'],
    ['rar', 'archive'],
    ['mp3', 'audio'],
    ['wav', 'audio'],
    ['flac', 'audio'],
    ['mp4', 'video'],
    ['mov', 'video'],
    ['webm', 'video'],
    ['m2ts', 'video'],
    ['exe', 'executable'],
    ['dll', 'executable'],
    ['so', 'executable'],
    ['bin', 'executable'],
    ['dylib', 'executable'],
    ['msi', 'executable'],
  ])('.%s is refused on name (%s), even when declared as an accepted type', (extension, family) => {
    for (const declared of ['application/octet-stream', 'text/plain', 'application/pdf']) {
      expect(resolve(extension, declared)).toEqual({ ok: false, field: 'name', message: `.${extension} files are not supported (${family})` });
    }
  });

  it.each([
    ['audio/mpeg', 'audio'],
    ['audio/wav', 'audio'],
    ['video/mp4', 'video'],
    ['video/mp2t', 'video'],
    ['application/zip', 'archive'],
    ['application/gzip', 'archive'],
    ['application/x-7z-compressed', 'archive'],
    ['application/vnd.rar', 'archive'],
    ['application/x-msdownload', 'executable'],
    ['application/x-executable', 'executable'],
  ])('an unknown extension declared %s is refused on contentType (%s)', (declared, family) => {
    expect(familyOfMediaType(declared)).toBe(family);
    expect(resolve('dat', declared)).toEqual({ ok: false, field: 'contentType', message: `"${declared}" is not supported (${family})` });
  });
});

describe('resolveFileKind: unknown extensions', () => {
  it.each([
    ['rs', 'text/plain', 'text/plain', 'text'],
    ['go', 'Text/Plain; charset=utf-8', 'text/plain', 'text'],
    ['conf2', 'application/json', 'application/json', 'text'],
    ['jfif', 'image/jpeg', 'image/jpeg', 'binary'],
    ['dat', 'application/pdf', 'application/pdf', 'binary'],
    ['data', 'text/xml', 'application/xml', 'text'],
    ['tab', 'application/vnd.ms-excel', 'application/vnd.ms-excel', 'binary'],
  ])('.%s declared %s is accepted as %s (%s)', (extension, declared, mediaType, fileClass) => {
    expect(resolve(extension, declared)).toEqual(accepted(mediaType, fileClass));
  });

  it.each([
    ['rs', 'text/rust', '"text/rust" is not a supported file type'],
    ['svg', 'image/svg+xml', '"image/svg+xml" is not a supported file type'],
    ['bmp', 'image/bmp', '"image/bmp" is not a supported file type'],
    ['dat', 'application/octet-stream', 'an unrecognized extension (.dat) needs a specific supported type, not application/octet-stream'],
  ])('.%s declared %s is refused on contentType', (extension, declared, message) => {
    expect(resolve(extension, declared)).toEqual({ ok: false, field: 'contentType', message });
  });

  it('prototype keys are not kinds', () => {
    for (const extension of ['constructor', '__proto__', 'tostring', 'hasownproperty']) {
      expect(resolve(extension, 'application/octet-stream')).toMatchObject({ ok: false, field: 'contentType' });
    }
  });
});

describe('mediaTypeEssence', () => {
  it.each([
    ['text/plain', 'text/plain'],
    ['TEXT/PLAIN', 'text/plain'],
    ['text/plain; charset=utf-8', 'text/plain'],
    ['text/plain;charset=UTF-8', 'text/plain'],
    ['text/plain ; charset="utf-8"', 'text/plain'],
    ['text/plain; charset="a \\"b\\""; format=flowed', 'text/plain'],
    ['application/vnd.ms-excel.sheet.binary.macroEnabled.12', 'application/vnd.ms-excel.sheet.binary.macroenabled.12'],
    ['application/ld+json', 'application/ld+json'],
  ])('%s → %s', (declared, essence) => {
    expect(mediaTypeEssence(declared)).toBe(essence);
  });

  it.each([
    [''],
    ['text'],
    ['text/'],
    ['/plain'],
    ['text/plain/x'],
    [' text/plain'],
    ['text/plain '],
    ['text /plain'],
    ['text/plain;'],
    ['text/plain; charset'],
    ['text/plain; charset='],
    ['text/plain; charset="unterminated'],
    ['text/pl ain'],
    ['tëxt/plain'],
    ['text/plain\n'],
    ['*/*'],
    [`application/${'x'.repeat(300)}`],
  ])('%j is not a media type', (declared) => {
    expect(mediaTypeEssence(declared)).toBeNull();
  });
});
