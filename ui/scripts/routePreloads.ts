// A build step (vite.config.ts): writes into index.html, as a JSON data block, the files each
// address's screen needs beyond the entry (src/boot.ts; src/routeParts.ts's table): the app's
// start (main.tsx), every part's chunk, the chunks they import and their CSS. The server reads the
// block out of the page and, for the address it answers, names those files in the page (<link
// rel="modulepreload">, the CSS as a style preload), so they download beside the entry script
// instead of after it has run. A rule with a `top` (its screen's top in the page) names none: that
// screen's code is fetched after the first paint (boot.ts); the block carries the top instead.
import { resolve } from 'node:path';
import type { OutputBundle, OutputChunk } from 'rolldown';
import type { Plugin } from 'vite';
import { NOT_FOUND_TOP, OTHER_PARTS, ROUTE_RULES, type PartName } from '../src/routeParts';

/** The module each part starts at (src/screens.ts's dynamic imports). */
const PART_MODULES: Record<PartName, string> = {
  router: 'src/RouterApp.tsx',
  flashcards: 'src/flashcards/FlashcardRoutes.tsx',
  calendars: 'src/calendars/CalendarRoutes.tsx',
  calendarEditor: 'src/calendars/CalendarEditorPage.tsx',
  sync: 'src/sync/SyncRoutes.tsx',
  owner: 'src/owner/OwnerRoutes.tsx',
};

/** The app's start, loaded by the entry (src/boot.ts). */
const START_MODULE = 'src/main.tsx';

/** The block's id; src/site/index.rs reads it. */
export const BLOCK_ID = 'hearth-route-parts';

interface Metadata {
  viteMetadata?: { importedCss: Set<string> };
}

/** `chunk` and every chunk it imports statically, each once (the first download's aside). */
function closure(bundle: OutputBundle, chunk: OutputChunk, seen: Set<string>, files: string[]) {
  if (seen.has(chunk.fileName)) return;
  seen.add(chunk.fileName);
  for (const name of chunk.imports) {
    const imported = bundle[name];
    if (imported?.type === 'chunk') closure(bundle, imported, seen, files);
  }
  for (const css of (chunk as OutputChunk & Metadata).viteMetadata?.importedCss ?? []) {
    if (!seen.has(css)) {
      seen.add(css);
      files.push(`/${css}`);
    }
  }
  files.push(`/${chunk.fileName}`);
}

export function routePreloads(root: string): Plugin {
  return {
    name: 'hearth-route-preloads',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html, context) {
        const bundle = context.bundle;
        if (!bundle) return html;
        const chunks = Object.values(bundle).filter((c): c is OutputChunk => c.type === 'chunk');
        // What the page already loads: the entry and its imports.
        const inFirstDownload = new Set<string>();
        for (const entry of chunks.filter((c) => c.isEntry)) closure(bundle, entry, inFirstDownload, []);
        const filesOf = (parts: PartName[], top: string | undefined): string[] => {
          if (top !== undefined) return [];
          const seen = new Set(inFirstDownload);
          const files: string[] = [];
          for (const source of [START_MODULE, ...parts.map((part) => PART_MODULES[part])]) {
            const id = resolve(root, source);
            const chunk = chunks.find((c) => c.facadeModuleId === id);
            if (!chunk) throw new Error(`routePreloads: no chunk starts at ${source}`);
            closure(bundle, chunk, seen, files);
          }
          return files;
        };
        const table = {
          rules: ROUTE_RULES.map((rule) => ({ path: rule.path, under: rule.under, files: filesOf(rule.parts, rule.top), top: rule.top ?? '' })),
          other: filesOf(OTHER_PARTS, NOT_FOUND_TOP),
          otherTop: NOT_FOUND_TOP,
        };
        const json = JSON.stringify(table).replace(/</g, '\\u003c');
        return html.replace('</head>', `<script type="application/json" id="${BLOCK_ID}">${json}</script>\n  </head>`);
      },
    },
  };
}
