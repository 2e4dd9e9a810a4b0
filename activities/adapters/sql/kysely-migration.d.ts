/*
 * kysely 0.29 exports its migrator only from the subpath 'kysely/migration' (package.json "exports"). Node and jest
 * resolve it; TypeScript with this project's `moduleResolution: "node"` ignores "exports", so this maps the subpath
 * to its declaration file. Remove it once tsconfig moves to node16/bundler resolution.
 */
declare module 'kysely/migration' {
  export * from 'kysely/dist/migration/index';
}
