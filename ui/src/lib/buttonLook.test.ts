import { describe, expect, it } from 'vitest';
import { buttonClass } from './buttonLook';

describe('buttonClass', () => {
  it('gives each look the classes of global.css', () => {
    expect(buttonClass('default')).toBe('button');
    expect(buttonClass('primary')).toBe('button button--primary');
    expect(buttonClass('quiet')).toBe('button button--quiet');
    expect(buttonClass('icon')).toBe('icon-button');
  });

  it('puts the caller’s own classes after the look, and ignores blank ones', () => {
    expect(buttonClass('quiet', 'sync-badge')).toBe('button button--quiet sync-badge');
    expect(buttonClass('primary', '  ')).toBe('button button--primary');
    expect(buttonClass('default', undefined)).toBe('button');
  });
});
