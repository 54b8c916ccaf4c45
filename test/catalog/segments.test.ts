import { describe, expect, it } from 'vitest';
import { countSegments } from '../../src/catalog/segments.js';

describe('countSegments', () => {
  it('fits 160 GSM-7 characters in one segment and 153 per part beyond', () => {
    expect(countSegments('a'.repeat(160))).toEqual({ encoding: 'GSM-7', segments: 1, characters: 160 });
    expect(countSegments('a'.repeat(161))).toEqual({ encoding: 'GSM-7', segments: 2, characters: 161 });
    expect(countSegments('a'.repeat(306)).segments).toBe(2);
    expect(countSegments('a'.repeat(307)).segments).toBe(3);
  });

  it('counts extension characters as two and never splits them across parts', () => {
    expect(countSegments('€'.repeat(80))).toEqual({ encoding: 'GSM-7', segments: 1, characters: 160 });
    expect(countSegments('€'.repeat(81))).toEqual({ encoding: 'GSM-7', segments: 2, characters: 162 });
    expect(countSegments('{}[]~^|\\\f').characters).toBe(18);
    // 152 septets then a 2-septet character: it goes whole into the second part.
    expect(countSegments(`${'a'.repeat(152)}€${'a'.repeat(152)}`).segments).toBe(3);
    expect(countSegments(`${'a'.repeat(151)}€${'a'.repeat(153)}`).segments).toBe(2);
  });

  it('knows the GSM-7 accented letters and Greek capitals', () => {
    expect(countSegments('Ünicödé? Nö: ÄÖÑÜäöñüàèéùìòÇØøÅåÆæßÉ ΔΦΓΛΩΠΨΣΘΞ ¡¿£¥§@$').encoding).toBe('GSM-7');
  });

  it('switches the whole text to UCS-2 for any other character: 70 units, 67 per part', () => {
    expect(countSegments('П'.repeat(70))).toEqual({ encoding: 'UCS-2', segments: 1, characters: 70 });
    expect(countSegments('П'.repeat(71))).toEqual({ encoding: 'UCS-2', segments: 2, characters: 71 });
    expect(countSegments(`${'a'.repeat(133)}ж`)).toEqual({ encoding: 'UCS-2', segments: 2, characters: 134 });
    expect(countSegments(`${'a'.repeat(134)}ж`).segments).toBe(3);
    expect(countSegments('ç').encoding).toBe('UCS-2'); // lower-case ç is not in GSM-7, only Ç
  });

  it('counts emoji as two UTF-16 units and never splits a pair', () => {
    expect(countSegments('😀'.repeat(35))).toEqual({ encoding: 'UCS-2', segments: 1, characters: 70 });
    expect(countSegments('😀'.repeat(36)).segments).toBe(2);
    expect(countSegments(`${'a'.repeat(66)}😀`)).toEqual({ encoding: 'UCS-2', segments: 1, characters: 68 });
    // 134 units would fit two parts of 67, but the pair cannot straddle them.
    expect(countSegments(`${'a'.repeat(66)}😀${'a'.repeat(66)}`).segments).toBe(3);
    expect(countSegments(`${'a'.repeat(65)}😀${'a'.repeat(67)}`).segments).toBe(2);
  });

  it('takes no segment for an empty text', () => {
    expect(countSegments('')).toEqual({ encoding: 'GSM-7', segments: 0, characters: 0 });
  });
});
