import { describe, expect, it } from 'vitest';
import { aboutTheVisitor } from './publish';

describe('aboutTheVisitor', () => {
  it('is true for a missing key and for throttling, which need no feed error around them', () => {
    expect(aboutTheVisitor(401)).toBe(true);
    expect(aboutTheVisitor(429)).toBe(true);
    expect(aboutTheVisitor(502)).toBe(false);
    expect(aboutTheVisitor(0)).toBe(false);
  });
});
