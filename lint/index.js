// The ESLint plugins the root eslint.config.js uses, re-exported from this workspace so that they
// resolve `typescript` to this workspace's TypeScript 6 (see package.json's description).
export { default as tseslint } from 'typescript-eslint';
export { importX, createNodeResolver } from 'eslint-plugin-import-x';
