// The site key's question: answered by the dialog on screen, cancelled when there is none (never
// the browser's bare prompt), a second question replacing the first, and a question left waiting
// when its dialog goes away cancelled.
import { describe, expect, it } from 'vitest';
import { addAnswerer, askSyncKey, currentKeyQuestion, subscribeKeyQuestion } from './keyQuestion';
import { keyOwner, keyQuestionText } from './words';

describe('the key question', () => {
  it('is cancelled when no dialog could answer it', async () => {
    await expect(askSyncKey(false)).resolves.toBeNull();
    expect(currentKeyQuestion()).toBeNull();
  });

  it('waits for the dialog’s answer, told whether a key was refused', async () => {
    const remove = addAnswerer();
    let heard = 0;
    const unsubscribe = subscribeKeyQuestion(() => (heard += 1));
    const answer = askSyncKey(true);
    expect(currentKeyQuestion()?.refused).toBe(true);
    currentKeyQuestion()?.answer('s3cret');
    await expect(answer).resolves.toBe('s3cret');
    expect(currentKeyQuestion()).toBeNull();
    expect(heard).toBe(2);
    unsubscribe();
    remove();
  });

  it('cancels a question that a newer one replaces, and one whose dialog went away', async () => {
    const remove = addAnswerer();
    const first = askSyncKey(false);
    const second = askSyncKey(false);
    await expect(first).resolves.toBeNull();
    remove();
    await expect(second).resolves.toBeNull();
    expect(currentKeyQuestion()).toBeNull();
  });
});

describe('its words', () => {
  it('name the owner to ask, or the person who runs the site when the site has no name', () => {
    expect(keyQuestionText('Ada')).toContain('Ask Ada, who runs this site, for the sync key');
    expect(keyOwner('Your Name')).toBe('the person who runs this site');
    expect(keyOwner('  ')).toBe('the person who runs this site');
  });
});
