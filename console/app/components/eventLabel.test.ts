import { describe, expect, it } from 'vitest';
import { eventLabel } from './eventLabel.ts';

describe('eventLabel', () => {
  it('names the model-progress kinds as spec 3 shows them in the console', () => {
    expect(eventLabel('model.call_started')).toBe('Model call started');
    expect(eventLabel('model.retry_scheduled')).toBe('Model retry scheduled');
  });

  it('reads every other kind as words', () => {
    expect(eventLabel('run.waiting_for_approval')).toBe('Run waiting for approval');
    expect(eventLabel('message.created')).toBe('Message created');
  });
});
