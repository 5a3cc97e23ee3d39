// Vite build of the React app. The Rust binary embeds ui/dist; `npm run dev` proxies the API
// to a hearth server on 127.0.0.1:8080.
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  plugins: [react()],
  build: {
    outDir: 'dist',
    assetsDir: 'assets',
    sourcemap: false,
    target: 'es2022',
    // Keep the landing page's first load small: the tools load when visited.
    modulePreload: { polyfill: false },
  },
  server: {
    proxy: {
      '/api': 'http://127.0.0.1:8080',
      '/cal': 'http://127.0.0.1:8080',
      '/avatar': 'http://127.0.0.1:8080',
    },
  },
});
