import * as v from 'valibot';
import type { FileInputItem, UploadRef } from '../../../domain/attachments/file-input.ts';
import { NEUTRAL_FILES_MESSAGE } from '../../../domain/attachments/file-input.ts';
import type { AttachmentMetadata } from '../../../domain/attachments/metadata.ts';
import { ValidationError } from '../../../domain/errors.ts';
import { isOurId } from './ids.ts';

/**
 * A CMA `user.message`'s content as one of our turns, and a turn as CMA content
 * (docs/decisions/anthropic-compat-files-in-messages.md). Text blocks are the turn's text (joined by a
 * blank line); image and document blocks are turn files: bytes given inline (`base64`) become a
 * file named after the block, a `file` source names an upload (`POST /v1/files`); a plain-text
 * document is text. URLs are refused (the server fetches nothing on a client's behalf).
 */

export type TurnFromMessage = { text: string | undefined; files: Array<FileInputItem | UploadRef> };

const fail = (field: string, message: string): never => {
  throw new ValidationError(`${field}: ${message}`, { path: `body.${field}` });
};

const UserMessage = v.strictObject({ type: v.literal('user.message'), content: v.pipe(v.array(v.record(v.string(), v.unknown())), v.minLength(1)) });
const Extras = { cache_control: v.optional(v.unknown()), citations: v.optional(v.unknown()) };
const TextBlock = v.strictObject({ type: v.literal('text'), text: v.string(), ...Extras });
const Source = v.variant('type', [
  v.strictObject({ type: v.literal('base64'), media_type: v.string(), data: v.string() }),
  v.strictObject({ type: v.literal('file'), file_id: v.string() }),
  v.strictObject({ type: v.literal('text'), media_type: v.optional(v.string()), data: v.string() }),
  v.strictObject({ type: v.literal('url'), url: v.string() }),
]);
const FileBlock = v.strictObject({
  type: v.picklist(['image', 'document']),
  source: Source,
  title: v.optional(v.nullable(v.string())),
  context: v.optional(v.nullable(v.string())),
  ...Extras,
});

/** Extensions for the media types a CMA client sends inline (our file kinds accept these). */
const EXTENSION_OF: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'application/pdf': 'pdf',
  'text/plain': 'txt',
};

/** The prefix of a CMA file id that names one of a turn's stored attachments (read-only). */
export const ATTACHMENT_FILE_PREFIX = 'att_';

export function userMessageTurn(event: Record<string, unknown>, field: string): TurnFromMessage {
  const parsed = v.safeParse(UserMessage, event);
  if (!parsed.success) return fail(field, 'must be {type: "user.message", content: [blocks]}');
  const texts: string[] = [];
  const files: Array<FileInputItem | UploadRef> = [];
  for (const [index, block] of parsed.output.content.entries()) {
    const at = `${field}.content.${index}`;
    if (block.type === 'text') {
      const text = v.safeParse(TextBlock, block);
      if (!text.success) return fail(at, 'must be {type: "text", text}');
      texts.push(text.output.text);
      continue;
    }
    if (block.type !== 'image' && block.type !== 'document')
      return fail(`${at}.type`, `${String(block.type)} blocks are not supported by this server; send text, image or document blocks`);
    const file = v.safeParse(FileBlock, block);
    if (!file.success) return fail(at, `must be {type: "${block.type}", source: {type: "base64" | "file" | "text", …}}`);
    const { source, title } = file.output;
    switch (source.type) {
      case 'url':
        return fail(`${at}.source`, 'URL sources are not supported by this server; upload the file or send its bytes');
      case 'text':
        if (block.type !== 'document') return fail(`${at}.source`, 'a text source is for documents');
        texts.push(title ? `${title}\n${source.data}` : source.data);
        break;
      case 'file':
        if (source.file_id.startsWith(ATTACHMENT_FILE_PREFIX) && isOurId(source.file_id.slice(ATTACHMENT_FILE_PREFIX.length)))
          return fail(`${at}.source.file_id`, "a turn's attachment cannot be attached again; upload the file");
        if (!isOurId(source.file_id)) return fail(`${at}.source.file_id`, 'no uploaded file with that id');
        files.push({ uploadId: source.file_id.toLowerCase() });
        break;
      default: {
        const mediaType = source.media_type.split(';')[0]!.trim().toLowerCase();
        // Own entries only: a media type `constructor` is not one we take, not `Object.prototype`'s.
        const extension = Object.hasOwn(EXTENSION_OF, mediaType) ? EXTENSION_OF[mediaType] : undefined;
        if (!extension) return fail(`${at}.source.media_type`, `${source.media_type} is not a type this server takes inline; upload the file`);
        files.push({ name: `${block.type}-${index + 1}.${extension}`, contentType: source.media_type, dataBase64: source.data });
      }
    }
  }
  const text = texts.join('\n\n');
  if (text.trim() === '' && files.length === 0) return fail(`${field}.content`, 'must hold some text or a file');
  return { text: text.trim() === '' ? undefined : text, files };
}

/** A CMA message as the text and files fields of one of our turns (`initialMessage` on creation, `message` after). */
export function turnFields<K extends 'initialMessage' | 'message'>(
  turn: TurnFromMessage,
  key: K,
): { [P in K]?: string } & { files?: TurnFromMessage['files'] } {
  return { ...(turn.text !== undefined ? { [key]: turn.text } : {}), ...(turn.files.length > 0 ? { files: turn.files } : {}) } as { [P in K]?: string } & {
    files?: TurnFromMessage['files'];
  };
}

/**
 * A stored user turn as CMA content: its text (unless it is the neutral text of a files-only
 * turn), then an image or document block per attached file, by its read-only file id.
 */
export function userMessageContent(text: string, attachments: readonly AttachmentMetadata[]): Array<Record<string, unknown>> {
  const blocks: Array<Record<string, unknown>> = attachments.length > 0 && text === NEUTRAL_FILES_MESSAGE ? [] : [{ type: 'text', text }];
  for (const file of attachments) {
    blocks.push({
      type: file.contentType.startsWith('image/') ? 'image' : 'document',
      source: { type: 'file', file_id: `${ATTACHMENT_FILE_PREFIX}${file.id}` },
    });
  }
  return blocks;
}
