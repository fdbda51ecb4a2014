import type { ReactNode } from 'react';

/**
 * A small, safe Markdown preview: headings, paragraphs, lists, fenced code, inline code, bold
 * and italics, rendered as React elements (never as HTML), so a Skill's text cannot inject markup.
 */
export function Markdown({ text }: { text: string }) {
  const blocks: ReactNode[] = [];
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  let index = 0;
  while (index < lines.length) {
    const line = lines[index]!;
    if (line.startsWith('```')) {
      const code: string[] = [];
      for (index++; index < lines.length && !lines[index]!.startsWith('```'); index++) code.push(lines[index]!);
      index++;
      blocks.push(
        <pre key={blocks.length}>
          <code>{code.join('\n')}</code>
        </pre>,
      );
    } else if (/^#{1,6} /.test(line)) {
      const level = line.indexOf(' ');
      const Tag = `h${Math.min(6, level + 2)}` as 'h3';
      blocks.push(<Tag key={blocks.length}>{inline(line.slice(level + 1))}</Tag>);
      index++;
    } else if (/^\s*([-*]|\d+\.) /.test(line)) {
      const ordered = /^\s*\d+\. /.test(line);
      const items: ReactNode[] = [];
      for (; index < lines.length && /^\s*([-*]|\d+\.) /.test(lines[index]!); index++)
        items.push(<li key={items.length}>{inline(lines[index]!.replace(/^\s*([-*]|\d+\.) /, ''))}</li>);
      blocks.push(ordered ? <ol key={blocks.length}>{items}</ol> : <ul key={blocks.length}>{items}</ul>);
    } else if (line.trim() === '') index++;
    else {
      const paragraph: string[] = [];
      for (; index < lines.length && lines[index]!.trim() !== '' && !/^(#{1,6} |```|\s*([-*]|\d+\.) )/.test(lines[index]!); index++)
        paragraph.push(lines[index]!);
      blocks.push(<p key={blocks.length}>{inline(paragraph.join(' '))}</p>);
    }
  }
  return <div className="markdown">{blocks}</div>;
}

function inline(text: string): ReactNode[] {
  return text.split(/(`[^`]+`|\*\*[^*]+\*\*|\*[^*]+\*)/g).map((part, index) => {
    if (part.startsWith('`') && part.endsWith('`') && part.length > 1) return <code key={index}>{part.slice(1, -1)}</code>;
    if (part.startsWith('**') && part.endsWith('**') && part.length > 3) return <strong key={index}>{part.slice(2, -2)}</strong>;
    if (part.startsWith('*') && part.endsWith('*') && part.length > 1) return <em key={index}>{part.slice(1, -1)}</em>;
    return part;
  });
}
