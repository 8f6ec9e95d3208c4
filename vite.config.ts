import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { precompress } from './scripts/precompress.ts';
import { publicApiDocs } from './scripts/apiDocs.ts';

/**
 * Vite config for the console: builds index.html + src/console into dist/console (with .gz and .br copies, served by
 * the server as the browser accepts); dev proxies /api to the server.
 */
export default defineConfig({
  base: '/',
  // publicApiDocs: /docs/api.yml, bundled from generated/openapi at build time and served by the dev server.
  plugins: [react(), publicApiDocs(), precompress('dist/console')],
  publicDir: 'public',
  build: {
    outDir: 'dist/console',
    emptyOutDir: true,
    chunkSizeWarningLimit: 2000,
  },
  server: {
    proxy: {
      '/api': 'http://localhost:8080',
    },
  },
});
