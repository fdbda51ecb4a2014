import type { ProductEvent } from '../event-feed.ts';

type Output = NodeJS.WritableStream & { isTTY?: boolean };

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/**
 * The progress of a followed run: event lines as they come and, on a terminal, one status line
 * kept at the bottom (state, model calls, tool calls, approvals, elapsed time) redrawn with a
 * spinner. Piped output gets the event lines only, then the same summary once at the end.
 */
export class RunProgress {
  private state = 'queued';
  private modelCalls = 0;
  private toolCalls = 0;
  private approvals = 0;
  private frame = 0;
  /** Mid-way through a line of live answer text: the status line waits until it ends. */
  private inText = false;
  private readonly out: Output;
  private readonly now: () => number;
  private readonly began: number;
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(out: Output, now: () => number = Date.now) {
    this.out = out;
    this.now = now;
    this.began = now();
    if (out.isTTY) this.timer = setInterval(() => this.redraw(), 100).unref();
  }

  /** Counts the event and prints its line above the status line. */
  event(event: ProductEvent, line: string): void {
    if (event.kind.startsWith('run.') && event.kind !== 'run.cancellation_requested') this.state = event.kind.slice('run.'.length);
    else if (event.kind === 'model.call_started') this.modelCalls += 1;
    else if (event.kind === 'tool_call.created') this.toolCalls += 1;
    else if (event.kind === 'approval.requested') this.approvals += 1;
    this.print(line);
  }

  /** `running · 2 model calls · 1 tool call · 1 approval · 3.4 s` */
  status(): string {
    const parts = [this.state.replaceAll('_', ' '), plural(this.modelCalls, 'model call'), plural(this.toolCalls, 'tool call')];
    if (this.approvals > 0) parts.push(plural(this.approvals, 'approval'));
    parts.push(`${((this.now() - this.began) / 1000).toFixed(1)} s`);
    return parts.join(' · ');
  }

  /** Writes the answer's text as the model writes it, under the event lines. */
  text(piece: string): void {
    if (!this.inText) {
      this.clear();
      this.inText = true;
    }
    this.out.write(piece);
  }

  /** Ends the live text's line; the status line comes back. */
  endText(): void {
    if (!this.inText) return;
    this.inText = false;
    this.out.write('\n');
    this.redraw();
  }

  /** Stops the status line and prints the final summary. */
  finish(): void {
    if (this.timer) clearInterval(this.timer);
    this.endText();
    this.clear();
    this.out.write(`run ${this.status()}\n`);
  }

  private print(line: string): void {
    this.endText();
    this.clear();
    this.out.write(`${line}\n`);
    this.redraw();
  }

  private clear(): void {
    if (this.out.isTTY) this.out.write('\r\x1b[2K');
  }

  private redraw(): void {
    if (!this.out.isTTY || this.inText) return;
    this.frame = (this.frame + 1) % SPINNER.length;
    this.out.write(`\r\x1b[2K${SPINNER[this.frame]} ${this.status()}`);
  }
}
