// How many SMS segments a text takes: GSM-7 (160 characters, 153 per part of
// a long message; extension characters count twice) or UCS-2 when any
// character is outside GSM-7 (70 UTF-16 units, 67 per part).

const GSM_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\u001bÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const GSM_EXTENDED = '^{}\\[~]|€\f';

const BASIC = new Set(GSM_BASIC);
const EXTENDED = new Set(GSM_EXTENDED);

export interface SegmentCount {
  encoding: 'GSM-7' | 'UCS-2';
  segments: number;
  /** Characters as the encoding counts them (septets for GSM-7, UTF-16 units for UCS-2). */
  characters: number;
}

export function countSegments(text: string): SegmentCount {
  let septets = 0;
  let gsm = true;
  for (const ch of text) {
    if (BASIC.has(ch)) septets += 1;
    else if (EXTENDED.has(ch)) septets += 2;
    else {
      gsm = false;
      break;
    }
  }
  if (gsm) return { encoding: 'GSM-7', characters: septets, segments: septets <= 160 ? 1 : Math.ceil(septets / 153) };
  const units = text.length;
  return { encoding: 'UCS-2', characters: units, segments: units <= 70 ? 1 : Math.ceil(units / 67) };
}
