export * from './inputs.ts';
export * from './limits.ts';
export * from './path.ts';
