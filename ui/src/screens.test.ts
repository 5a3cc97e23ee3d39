import { describe, expect, it } from 'vitest';
import { calendarEditor, calendarRoutes } from './calendars/screens';
import { flashcardRoutes, ownerRoutes, partsAt, routerApp, syncRoutes } from './screens';

describe('the parts an address fetches at once', () => {
  it('are none for the landing page, which is in the first download', () => {
    expect(partsAt('/')).toEqual([]);
  });

  it('are the router and the tool, and the calendar editor at its address', () => {
    expect(partsAt('/calendars/new')).toEqual([routerApp, calendarRoutes, calendarEditor]);
    expect(partsAt('/calendars/new/')).toEqual([routerApp, calendarRoutes, calendarEditor]);
    expect(partsAt('/calendars')).toEqual([routerApp, calendarRoutes]);
    expect(partsAt('/calendars/work')).toEqual([routerApp, calendarRoutes]);
    expect(partsAt('/flashcards')).toEqual([routerApp, flashcardRoutes]);
    expect(partsAt('/flashcards/abc/practice')).toEqual([routerApp, flashcardRoutes]);
    expect(partsAt('/sync/deck')).toEqual([routerApp, syncRoutes]);
    expect(partsAt('/owner')).toEqual([routerApp, ownerRoutes]);
  });

  it('are the router alone where no tool is (its "page not found")', () => {
    expect(partsAt('/nowhere')).toEqual([routerApp]);
    expect(partsAt('/calendarsx')).toEqual([routerApp]);
  });
});
