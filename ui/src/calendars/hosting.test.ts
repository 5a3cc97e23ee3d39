import { describe, expect, it } from 'vitest';
import { MemoryStorage } from '../lib/memoryStorage';
import { ApiError, type PublishAnswer, type PublishRequest } from './api';
import { defaultMapping, type SavedCalendar } from './calendar';
import { editorReducer, initialEditorState, isDirty, type EditorAction, type EditorState } from './editor';
import { runPublish, runUnpublish, type HostingDeps } from './hosting';
import { liveState, publishFingerprint } from './live';
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
    now: () => new Date('2026-01-02T03:04:05.000Z'),
  };
  const dispatch = (action: EditorAction) => actions.push(action);
  const final = (state: EditorState) => actions.reduce(editorReducer, state);
  return { store, alerts, actions, sent, deps, dispatch, final };
}

describe('Build & Host', () => {
  it('stores the hosted address and the edit token of a calendar never saved', async () => {
    const t = setup({ publish: () => Promise.resolve({ hostedUrl: 'http://h/cal/a.ics', editToken: 'tok' }) });
    const state = initialEditorState(null, calendar.url);
    await runPublish(state, calendar, t.dispatch, t.deps);
    expect(t.actions.map((a) => a.type)).toEqual(['saved', 'publishStarted', 'publishEnded']);
    const fingerprint = publishFingerprint(calendar, state.mapping, state.options);
    expect(t.final(state).hosting).toEqual({ hostedUrl: 'http://h/cal/a.ics', editToken: 'tok', publishedConfig: fingerprint });
    expect(t.store.get('a')).toMatchObject({ ...calendar, hostedUrl: 'http://h/cal/a.ics', editToken: 'tok', publishedConfig: fingerprint });
    expect(t.alerts).toEqual([]);
  });

  it('saves the edited mapping before publishing, so the list holds what subscribers get', async () => {
    const t = setup({ publish: () => Promise.resolve({ hostedUrl: 'http://h/cal/a.ics', editToken: null }) });
    const saved: SavedCalendar = { ...calendar, mapping: defaultMapping(), lastBuiltAt: 'then', editToken: 'tok' };
    t.store.upsert(saved);
    const state = { ...initialEditorState(saved), mapping: { ...defaultMapping(), SUMMARY: 'unsaved' } };
    t.store.writeDraft({ ...calendar, mapping: state.mapping, savedAt: 'then' });
    expect(isDirty(state)).toBe(true);
    await runPublish(state, calendar, t.dispatch, t.deps);
    expect(t.sent[0]?.editToken).toBe('tok');
    expect(t.sent[0]?.mapping.SUMMARY).toBe('unsaved');
    expect(t.store.get('a')).toMatchObject({
      mapping: { ...defaultMapping(), SUMMARY: 'unsaved' },
      lastBuiltAt: '2026-01-02T03:04:05.000Z',
      editToken: 'tok',
      hostedUrl: 'http://h/cal/a.ics',
      publishedConfig: publishFingerprint(calendar, state.mapping, state.options),
    });
    // Saved: the editor holds nothing unsaved, and the draft of the edit is gone.
    expect(isDirty(t.final(state))).toBe(false);
    expect(t.store.readDraft('a')).toBeNull();
    // Reopened, the editor shows the live mapping and says the feed matches it.
    const reopened = initialEditorState(t.store.get('a'));
    expect(reopened.mapping.SUMMARY).toBe('unsaved');
    expect(liveState(reopened.hosting.publishedConfig, publishFingerprint(calendar, reopened.mapping, reopened.options))).toBe('live');
  });

  it('says why a publish failed; the calendar is saved but not hosted', async () => {
    const t = setup({ publish: () => Promise.reject(new ApiError(502, 'upstream down')) });
    const state = initialEditorState(null, calendar.url);
    await runPublish(state, calendar, t.dispatch, t.deps);
    expect(t.alerts).toEqual(['Publish failed: upstream down']);
    expect(t.final(state)).toMatchObject({ publishing: false, hosting: state.hosting });
    expect(t.store.get('a')).toMatchObject({ ...calendar, mapping: state.mapping });
    expect(t.store.get('a')).not.toHaveProperty('hostedUrl');
  });

  it("names the input a refusal is about, from the answer's field", async () => {
    const t = setup({ publish: () => Promise.reject(new ApiError(400, 'at most 200 characters are allowed', 'name')) });
    await runPublish(initialEditorState(null, calendar.url), calendar, t.dispatch, t.deps);
    const u = setup({ publish: () => Promise.reject(new ApiError(400, 'the template does not compile', 'mapping.SUMMARY')) });
    await runPublish(initialEditorState(null, calendar.url), calendar, u.dispatch, u.deps);
    expect([...t.alerts, ...u.alerts]).toEqual([
      'Publish failed: name: at most 200 characters are allowed',
      'Publish failed: SUMMARY template: the template does not compile',
    ]);
  });
});

describe('Build & Host of a merged calendar', () => {
  it('marks the feed a refusal is about and names it as the editor numbers its feeds', async () => {
    // The server's second source is the editor's third feed: the second has no address and is not sent.
    const t = setup({ publish: () => Promise.reject(new ApiError(400, 'at most 64 characters are allowed', 'sources[1].label')) });
    const actions = [
      { type: 'add' },
      { type: 'add' },
      { type: 'set', key: 2, input: 'url', value: 'https://h/cal.ics' },
      { type: 'set', key: 2, input: 'label', value: 'x'.repeat(70) },
    ] as const;
    const state = actions.reduce((s, action) => editorReducer(s, { type: 'sources', action }), initialEditorState(null, calendar.url));
    await runPublish(state, calendar, t.dispatch, t.deps);
    expect(t.sent[0]).toMatchObject({ sources: [{ url: calendar.url }, { url: 'https://h/cal.ics', label: 'x'.repeat(70) }] });
    expect(t.alerts).toEqual(['Publish failed: feed 3 label: at most 64 characters are allowed']);
    expect(t.final(state).sources.serverErrors).toEqual({ '2.label': 'at most 64 characters are allowed' });
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
