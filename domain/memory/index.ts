export * from './inputs.ts';
export * from './limits.ts';
export * from './path.ts';
export * from './attachments.ts';
export * from './prompt.ts';
export * from './tools.ts';
