import { describe, expect, it } from 'vitest';
import { MemoryStorage } from '../lib/memoryStorage';
import { ApiError, type PublishAnswer, type PublishRequest } from './api';
import { defaultMapping, type SavedCalendar } from './calendar';
import { editorReducer, initialEditorState, type EditorAction, type EditorState } from './editor';
import { runPublish, runUnpublish, type HostingDeps } from './hosting';
import { createCalendarStore } from './storage';

const calendar = { id: 'a', name: 'A', url: 'https://x/cal.ics' };

function setup(options: { publish?: () => Promise<PublishAnswer>; unpublish?: () => Promise<void>; confirm?: boolean }) {
  const store = createCalendarStore(new MemoryStorage());
  const alerts: string[] = [];
  const actions: EditorAction[] = [];
  const sent: PublishRequest[] = [];
  const deps: HostingDeps = {
    store,
    keys: { readKey: () => null, writeKey: () => undefined, clearKey: () => undefined, askKey: () => null },
    alert: (message) => alerts.push(message),
    confirm: () => options.confirm ?? true,
    publish: (request) => {
      sent.push(request);
      return options.publish?.() ?? Promise.reject(new Error('no publish'));
    },
    unpublish: () => options.unpublish?.() ?? Promise.resolve(),
  };
  const dispatch = (action: EditorAction) => actions.push(action);
  const final = (state: EditorState) => actions.reduce(editorReducer, state);
  return { store, alerts, actions, sent, deps, dispatch, final };
}

describe('Build & Host', () => {
  it('stores the hosted address and the edit token of a calendar never saved', async () => {
    const t = setup({ publish: () => Promise.resolve({ hostedUrl: 'http://h/cal/a.ics', editToken: 'tok' }) });
    const state = initialEditorState(null);
    await runPublish(state, calendar, t.dispatch, t.deps);
    expect(t.actions.map((a) => a.type)).toEqual(['publishStarted', 'publishEnded']);
    expect(t.final(state).hosting).toEqual({ hostedUrl: 'http://h/cal/a.ics', editToken: 'tok' });
    expect(t.store.get('a')).toMatchObject({ ...calendar, hostedUrl: 'http://h/cal/a.ics', editToken: 'tok' });
    expect(t.alerts).toEqual([]);
  });

  it('changes only the hosting of a stored calendar, keeping its saved mapping', async () => {
    const t = setup({ publish: () => Promise.resolve({ hostedUrl: 'http://h/cal/a.ics', editToken: null }) });
    const saved: SavedCalendar = { ...calendar, mapping: defaultMapping(), lastBuiltAt: 'then', editToken: 'tok' };
    t.store.upsert(saved);
    const state = { ...initialEditorState(saved), mapping: { ...defaultMapping(), SUMMARY: 'unsaved' } };
    await runPublish(state, calendar, t.dispatch, t.deps);
    expect(t.sent[0]?.editToken).toBe('tok');
    expect(t.sent[0]?.mapping.SUMMARY).toBe('unsaved');
    expect(t.store.get('a')).toEqual({ ...saved, hostedUrl: 'http://h/cal/a.ics' });
  });

  it('says why a publish failed and stores nothing', async () => {
    const t = setup({ publish: () => Promise.reject(new ApiError(502, 'upstream down')) });
    const state = initialEditorState(null);
    await runPublish(state, calendar, t.dispatch, t.deps);
    expect(t.alerts).toEqual(['Publish failed: upstream down']);
    expect(t.final(state)).toMatchObject({ publishing: false, hosting: state.hosting });
    expect(t.store.get('a')).toBeNull();
  });
});

describe('Unpublish', () => {
  const hosted: SavedCalendar = {
    ...calendar,
    mapping: defaultMapping(),
    lastBuiltAt: '',
    editToken: 'tok',
    hostedUrl: 'http://h/cal/a.ics',
  };

  it('asks first and does nothing when the owner declines', async () => {
    const t = setup({ confirm: false });
    await runUnpublish(initialEditorState(hosted), 'a', t.dispatch, t.deps);
    expect(t.actions).toEqual([]);
  });

  it('forgets the hosting in the state and in storage', async () => {
    const t = setup({});
    t.store.upsert(hosted);
    const state = initialEditorState(hosted);
    await runUnpublish(state, 'a', t.dispatch, t.deps);
    expect(t.final(state)).toMatchObject({ unpublishing: false, hosting: {} });
    expect(t.store.get('a')).not.toHaveProperty('hostedUrl');
    expect(t.store.get('a')).not.toHaveProperty('editToken');
  });

  it('keeps the hosting when the server refuses', async () => {
    const t = setup({ unpublish: () => Promise.reject(new ApiError(403, 'wrong token')) });
    t.store.upsert(hosted);
    const state = initialEditorState(hosted);
    await runUnpublish(state, 'a', t.dispatch, t.deps);
    expect(t.alerts).toEqual(['Unpublish failed: wrong token']);
    expect(t.final(state).hosting).toEqual(state.hosting);
    expect(t.store.get('a')).toEqual(hosted);
  });
});
