// Vite build of the React app. The Rust binary embeds ui/dist; `npm run dev` proxies the API
// to a hearth server on 127.0.0.1:8080. The service worker (src/sw.ts) is built by
// vite-plugin-pwa, which adds the list of files to precache.
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { VitePWA } from 'vite-plugin-pwa';
import { routePreloads } from './scripts/routePreloads';

export default defineConfig({
  plugins: [
    react(),
    // Each address's parts named in index.html for the server (scripts/routePreloads.ts).
    routePreloads(import.meta.dirname),
    VitePWA({
      strategies: 'injectManifest',
      srcDir: 'src',
      filename: 'sw.ts',
      injectRegister: false,
      registerType: 'autoUpdate',
      injectManifest: {
        globPatterns: ['**/*.{js,css,svg,png,webmanifest}'],
        // "Optimise my schedule" loads its Worker, its glue and its WebAssembly (never precached:
        // no .wasm is) only when the learner asks: none of it is part of the first visit.
        globIgnores: ['**/optimiseWorker-*.js', '**/fsrs_browser-*.js', '**/workerHelpers-*.js'],
      },
      manifest: {
        name: 'Hearth',
        short_name: 'Hearth',
        description: 'A personal website with language flashcards and calendar feeds.',
        start_url: '/',
        scope: '/',
        display: 'standalone',
        background_color: '#faf7f2',
        theme_color: '#b4532a',
        icons: [
          { src: '/favicon.svg', sizes: 'any', type: 'image/svg+xml', purpose: 'any' },
          { src: '/icon-192.png', sizes: '192x192', type: 'image/png' },
          { src: '/icon-512.png', sizes: '512x512', type: 'image/png' },
        ],
      },
    }),
  ],
  // The Anki package Worker loads sql.js lazily in chunks of its own (ES module workers).
  worker: { format: 'es' },
  build: {
    outDir: 'dist',
    assetsDir: 'assets',
    sourcemap: false,
    target: 'es2022',
    // Keep the landing page's first load small: the tools load when visited.
    modulePreload: { polyfill: false },
  },
  server: {
    // Each key is a prefix of the path: '/cal' would also send the app's own /calendars pages to
    // the server, so the hosted feeds' key ends with its slash.
    proxy: {
      '/api': 'http://127.0.0.1:8080',
      '/cal/': 'http://127.0.0.1:8080',
      '/avatar': 'http://127.0.0.1:8080',
    },
  },
});
