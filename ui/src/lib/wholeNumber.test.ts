import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatWholeNumber, parseWholeNumber, rangeMessage, readNumberInput, standsFor } from './wholeNumber';

const DAYS = { min: 0, max: 36500 };

describe('parseWholeNumber', () => {
  it('accepts whole numbers in the range, the bounds included', () => {
    expect(parseWholeNumber('0', DAYS)).toEqual({ ok: true, value: 0 });
    expect(parseWholeNumber('30', DAYS)).toEqual({ ok: true, value: 30 });
    expect(parseWholeNumber(' 36500 ', DAYS)).toEqual({ ok: true, value: 36500 });
  });

  it('reads every way a number box writes a whole number', () => {
    expect(parseWholeNumber('007', DAYS)).toEqual({ ok: true, value: 7 });
    expect(parseWholeNumber('1.0', DAYS)).toEqual({ ok: true, value: 1 });
    expect(parseWholeNumber('1e3', DAYS)).toEqual({ ok: true, value: 1000 });
    expect(parseWholeNumber('-0', DAYS)).toEqual({ ok: true, value: 0 });
    expect(Object.is((parseWholeNumber('-0', DAYS) as { value: number }).value, 0)).toBe(true);
  });

  it('refuses numbers out of range instead of clamping them', () => {
    expect(parseWholeNumber('-1', DAYS)).toEqual({ ok: false });
    expect(parseWholeNumber('36501', DAYS)).toEqual({ ok: false });
    expect(parseWholeNumber('4', { min: 5 })).toEqual({ ok: false });
    expect(parseWholeNumber('99999999', { min: 5 })).toEqual({ ok: true, value: 99999999 });
  });

  it('refuses fractions instead of rounding them', () => {
    expect(parseWholeNumber('1.5', DAYS)).toEqual({ ok: false });
    expect(parseWholeNumber('.5', DAYS)).toEqual({ ok: false });
    expect(parseWholeNumber('1e-1', DAYS)).toEqual({ ok: false });
  });

  it('refuses what is not a number, where Number() would say NaN, 0 or a hex value', () => {
    for (const text of ['abc', '-', '1e', '0x10', '0b1', 'Infinity', 'NaN', '1,5', '+1', '1 2', '١٢']) {
      expect(parseWholeNumber(text, DAYS), text).toEqual({ ok: false });
    }
  });

  it('refuses numbers past what a double holds exactly', () => {
    expect(parseWholeNumber('9007199254740993', { min: 0 })).toEqual({ ok: false });
    expect(parseWholeNumber('1e400', { min: 0 })).toEqual({ ok: false });
  });

  it('reads an empty box as no value, or refuses it when a value is required', () => {
    expect(parseWholeNumber('', DAYS)).toEqual({ ok: true, value: undefined });
    expect(parseWholeNumber('  ', DAYS)).toEqual({ ok: true, value: undefined });
    expect(parseWholeNumber('', { ...DAYS, required: true })).toEqual({ ok: false });
  });

  it('accepts only the steps from min', () => {
    const fives = { min: 5, max: 60, step: 5 };
    expect(parseWholeNumber('5', fives)).toEqual({ ok: true, value: 5 });
    expect(parseWholeNumber('60', fives)).toEqual({ ok: true, value: 60 });
    expect(parseWholeNumber('12', fives)).toEqual({ ok: false });
  });

  it('accepts exactly the whole numbers of the range, written in decimal', () => {
    fc.assert(
      fc.property(fc.integer({ min: -100, max: 200 }), fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 100 }), (n, min, span) => {
        const range = { min, max: min + span };
        const entry = parseWholeNumber(String(n), range);
        expect(entry.ok).toBe(n >= min && n <= min + span);
        if (entry.ok) expect(entry.value).toBe(n);
      }),
    );
  });

  it('never answers NaN, whatever the text', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const entry = parseWholeNumber(text, { min: -10 });
        if (entry.ok && entry.value !== undefined) expect(Number.isSafeInteger(entry.value)).toBe(true);
      }),
    );
  });
});

describe('readNumberInput', () => {
  it('refuses what the browser flags as bad input, which it reports as an empty value', () => {
    expect(readNumberInput({ value: '', badInput: true }, DAYS)).toEqual({ ok: false });
    expect(readNumberInput({ value: '', badInput: false }, DAYS)).toEqual({ ok: true, value: undefined });
    expect(readNumberInput({ value: '12', badInput: false }, DAYS)).toEqual({ ok: true, value: 12 });
  });
});

describe('rangeMessage', () => {
  it('says the range, and the step when there is one', () => {
    expect(rangeMessage({ min: 0, max: 9999 })).toBe('A whole number from 0 to 9999.');
    expect(rangeMessage({ min: 1 })).toBe('A whole number, 1 or more.');
    expect(rangeMessage({ min: 0, max: 60, step: 5 })).toBe('A whole number from 0 to 60, in steps of 5.');
  });
});

describe('formatWholeNumber and standsFor', () => {
  it('writes a value as the box shows it, nothing as an empty box', () => {
    expect(formatWholeNumber(42)).toBe('42');
    expect(formatWholeNumber(undefined)).toBe('');
    expect(formatWholeNumber(NaN)).toBe('');
  });

  it('knows when the text typed already means the value, so it is left as typed', () => {
    expect(standsFor('007', 7, DAYS)).toBe(true);
    expect(standsFor('', undefined, DAYS)).toBe(true);
    expect(standsFor('8', 7, DAYS)).toBe(false);
    expect(standsFor('-1', undefined, DAYS)).toBe(false);
  });
});
