import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

/** Vite config for the console: builds index.html + src/console into dist/console; dev proxies /api to the server. */
export default defineConfig({
  base: '/',
  plugins: [react()],
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
