// Country and operator of a recipient number for Message/List withNumberInfo=1:
// a small built-in table of prefixes, longest match first. Illustrative, not
// authoritative (numbers move between operators); unknown parts are null.

interface Prefix {
  prefix: string;
  country: string;
  operator: string | null;
}

const TABLE: Prefix[] = [
  // Kazakhstan: +7 followed by 6 or 7.
  ...['700', '708'].map((p) => ({ prefix: `7${p}`, country: 'KZ', operator: 'Altel' })),
  ...['701', '702', '775', '778'].map((p) => ({ prefix: `7${p}`, country: 'KZ', operator: 'Kcell' })),
  ...['705', '771', '776', '777'].map((p) => ({ prefix: `7${p}`, country: 'KZ', operator: 'Beeline KZ' })),
  ...['707', '747'].map((p) => ({ prefix: `7${p}`, country: 'KZ', operator: 'Tele2 KZ' })),
  { prefix: '76', country: 'KZ', operator: null },
  { prefix: '77', country: 'KZ', operator: null },
  // Russia: every other +7 number.
  ...['910', '915', '916', '917', '919', '985'].map((p) => ({ prefix: `7${p}`, country: 'RU', operator: 'MTS' })),
  ...['903', '905', '906', '909', '960', '961', '962', '963', '964', '965'].map((p) => ({ prefix: `7${p}`, country: 'RU', operator: 'Beeline' })),
  ...['920', '921', '922', '925', '926', '929'].map((p) => ({ prefix: `7${p}`, country: 'RU', operator: 'MegaFon' })),
  ...['900', '901', '902', '904', '908', '950', '951', '952', '953'].map((p) => ({ prefix: `7${p}`, country: 'RU', operator: 'Tele2' })),
  { prefix: '7', country: 'RU', operator: null },
  // Uzbekistan.
  ...['90', '91'].map((p) => ({ prefix: `998${p}`, country: 'UZ', operator: 'Beeline UZ' })),
  ...['93', '94'].map((p) => ({ prefix: `998${p}`, country: 'UZ', operator: 'Ucell' })),
  ...['88', '97'].map((p) => ({ prefix: `998${p}`, country: 'UZ', operator: 'Mobiuz' })),
  ...['95', '99'].map((p) => ({ prefix: `998${p}`, country: 'UZ', operator: 'Uzmobile' })),
  { prefix: '998', country: 'UZ', operator: null },
  // Ukraine.
  ...['50', '66', '95', '99'].map((p) => ({ prefix: `380${p}`, country: 'UA', operator: 'Vodafone UA' })),
  ...['67', '68', '96', '97', '98'].map((p) => ({ prefix: `380${p}`, country: 'UA', operator: 'Kyivstar' })),
  ...['63', '73', '93'].map((p) => ({ prefix: `380${p}`, country: 'UA', operator: 'lifecell' })),
  { prefix: '380', country: 'UA', operator: null },
  // Brazil, United States (and the rest of +1), a few neighbours.
  { prefix: '55', country: 'BR', operator: null },
  { prefix: '1', country: 'US', operator: null },
  { prefix: '996', country: 'KG', operator: null },
  { prefix: '992', country: 'TJ', operator: null },
  { prefix: '375', country: 'BY', operator: null },
  { prefix: '44', country: 'GB', operator: null },
  { prefix: '49', country: 'DE', operator: null },
];

const BY_PREFIX = new Map(TABLE.map((p) => [p.prefix, p]));
const LONGEST = Math.max(...TABLE.map((p) => p.prefix.length));

export interface NumberInfo {
  countryA2: string | null;
  operatorName: string | null;
}

export function numberInfo(digits: string): NumberInfo {
  for (let len = Math.min(LONGEST, digits.length); len > 0; len--) {
    const hit = BY_PREFIX.get(digits.slice(0, len));
    if (hit) return { countryA2: hit.country, operatorName: hit.operator };
  }
  return { countryA2: null, operatorName: null };
}
