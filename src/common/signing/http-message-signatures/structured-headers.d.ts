// Types for `structured-headers` under our `node` module resolution, which does not read the
// package's `exports` map: its CommonJS build ships them (docs/http-message-signatures.md).
declare module 'structured-headers' {
  export * from 'structured-headers/cjs/index.cjs';
}
