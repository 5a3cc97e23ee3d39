// The service worker: the app's files are precached so the landing page and the flashcard tool
// work offline; pages go to the network first (they carry the owner's profile) and fall back to
// the last copy; a new version takes over on the next visit instead of serving stale files.
/// <reference lib="webworker" />
import { clientsClaim } from 'workbox-core';
import { cleanupOutdatedCaches, precacheAndRoute } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';
import { NetworkFirst, StaleWhileRevalidate } from 'workbox-strategies';
import { pageCacheKey, SHARED_PAGE_KEY, withoutTop } from './routeParts';

declare const self: ServiceWorkerGlobalScope;

void self.skipWaiting();
clientsClaim();
cleanupOutdatedCaches();
precacheAndRoute(self.__WB_MANIFEST);

/**
 * The page for an address whose own copy is not kept: the one copy of the pages without a top,
 * else a kept page of another address with its top taken out (a visitor who saw only the landing
 * page online).
 */
async function anyPage(): Promise<Response | undefined> {
  const cache = await caches.open('pages');
  const shared = await cache.match(SHARED_PAGE_KEY);
  if (shared) return shared;
  for (const key of await cache.keys()) {
    const page = await cache.match(key);
    if (page?.ok) return new Response(withoutTop(await page.text()), { headers: { 'Content-Type': 'text/html; charset=utf-8' } });
  }
  return undefined;
}

// Every client route is the same app, so one cached page serves them all offline, except the
// pages that carry their screen's top (routeParts.ts): each is kept under its own address, so that
// offline no other address shows that top before its own screen. An address whose own copy is not
// kept (offline before its first visit) gets the app's page.
const pages = new NetworkFirst({
  cacheName: 'pages',
  networkTimeoutSeconds: 4,
  plugins: [{ cacheKeyWillBeUsed: ({ request }) => Promise.resolve(pageCacheKey(new URL(request.url).pathname)) }, { handlerDidError: () => anyPage() }],
});
registerRoute(new NavigationRoute(pages, { denylist: [/^\/api\//, /^\/cal\//] }));

// The profile and avatar, for the header and landing page when offline.
registerRoute(
  ({ url }) => url.origin === self.location.origin && (url.pathname === '/api/site' || url.pathname === '/avatar'),
  new StaleWhileRevalidate({ cacheName: 'profile' }),
);
