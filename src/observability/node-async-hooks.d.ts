// The part of `node:async_hooks` workerd provides under nodejs_compat that this code uses (the
// Worker's tsconfig has no Node types; the Node-side config gets the real ones from @types/node).
declare module "node:async_hooks" {
  export class AsyncLocalStorage<T> {
    run<R>(store: T, fn: () => R): R;
    getStore(): T | undefined;
  }
}
