import path from 'node:path';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// Served by the gateway under /console/; everything is bundled (no CDN, no remote font).
export default defineConfig({
  base: '/console/',
  plugins: [react()],
  resolve: {
    // The contracts' TypeScript sources as ES modules, so the bundle keeps only what is used.
    alias: {
      '@switchboard/contracts': path.resolve(import.meta.dirname, '../contracts/src/index.ts'),
    },
  },
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 2000 },
});
