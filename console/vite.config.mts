import { defineConfig } from 'vite';

// The console's build (console/README.md): one entry, hashed file names under assets/, no inline script or style
// (the server's Content-Security-Policy allows 'self' only), nothing fetched at run time.
export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  logLevel: 'warn',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    // Vite would inline small assets as data: URLs and add an inline module-preload polyfill; neither passes the CSP.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
  },
});
