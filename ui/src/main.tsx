// Entry point: mounts the app, once the parts of the screen at its address are here.
import { startTransition, StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { settledWithin } from './lib/preload';
import { registerServiceWorker } from './lib/serviceWorker';
import { loadScreens } from './screens';

/** How long the first render waits for a screen's parts before it shows "Loading…" instead. */
const LOADING_AFTER_MS = 1000;

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const root = document.getElementById('root');
if (root) {
  // At an address inside a tool, the parts its screen shows are fetched together (screens.ts) and
  // the first render waits for them: the screen is drawn once, not after a "Loading…" per part.
  void settledWithin(loadScreens(window.location.pathname), LOADING_AFTER_MS, wait).then(() => {
    const app = createRoot(root);
    // A transition: React draws the screen in slices, giving the main thread back between them,
    // so a large screen (the calendar editor) is not one long task that blocks a phone's input.
    startTransition(() =>
      app.render(
        <StrictMode>
          <App />
        </StrictMode>,
      ),
    );
  });
}

registerServiceWorker();
