// How many SMS segments a text takes (GSM 03.38): GSM-7 texts take 160 septets
// in one segment or 153 a part (€ { } and the other extension characters take
// two, never split); any other character makes the text UCS-2, 70 UTF-16 units
// or 67 a part (a surrogate pair never split). The emulator (segNum, price) and
// the CLI (--dry-run, a bulk send's estimate) count alike.

const GSM_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const GSM_EXTENSION = '\f^{}\\[~]|€';

const BASIC = new Set(GSM_BASIC);
const EXTENSION = new Set(GSM_EXTENSION);

export interface SegmentCount {
  encoding: 'GSM-7' | 'UCS-2';
  /** Segments the text is sent as; 0 for an empty text. */
  segments: number;
  /** Length in the units of the encoding: septets for GSM-7 (extension characters count 2), UTF-16 code units for UCS-2. */
  characters: number;
}

export const GSM7_SINGLE = 160;
export const GSM7_PART = 153;
export const UCS2_SINGLE = 70;
export const UCS2_PART = 67;

/** Fills parts of `capacity` units with indivisible items of the given widths. */
function parts(widths: number[], capacity: number): number {
  let count = 1;
  let used = 0;
  for (const w of widths) {
    if (used + w > capacity) {
      count++;
      used = 0;
    }
    used += w;
  }
  return count;
}

export function countSegments(text: string): SegmentCount {
  const widths: number[] = [];
  let gsm = true;
  for (const ch of text) {
    if (BASIC.has(ch)) widths.push(1);
    else if (EXTENSION.has(ch)) widths.push(2);
    else {
      gsm = false;
      break;
    }
  }
  if (gsm) {
    const characters = widths.reduce((a, b) => a + b, 0);
    if (characters === 0) return { encoding: 'GSM-7', segments: 0, characters: 0 };
    return { encoding: 'GSM-7', segments: characters <= GSM7_SINGLE ? 1 : parts(widths, GSM7_PART), characters };
  }
  const units: number[] = [];
  for (const ch of text) units.push(ch.length);
  const characters = text.length;
  return { encoding: 'UCS-2', segments: characters <= UCS2_SINGLE ? 1 : parts(units, UCS2_PART), characters };
}
