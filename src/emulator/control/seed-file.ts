// Seed files on disk: reading one (YAML or JSON) for `serve --seed FILE`, and
// the commented starter file `smslink serve init [FILE]` writes. YAML is read
// with the `yaml` package (YAML 1.2: dates such as 2030-01-31 stay text, as
// the catalog's rules expect), loaded only when a YAML file is read.

import { readFileSync, writeFileSync } from 'node:fs';
import { extname } from 'node:path';
import { SeedError } from './seed.js';
import { fileProblem } from '../../output/words.js';

export const DEFAULT_SEED_FILE = 'smslink-seed.yaml';

/** Reads and parses a seed file; throws SeedError naming the file and what is wrong. */
export async function readSeedFile(path: string): Promise<unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    // Said as every file smslink cannot read is said; the file's problem, not the seed's (serve names --seed before it).
    throw new SeedError(fileProblem('', path, err), { cause: err });
  }
  const ext = extname(path).toLowerCase();
  if (ext === '.json' || (ext !== '.yaml' && ext !== '.yml' && text.trimStart().startsWith('{'))) {
    try {
      return JSON.parse(text);
    } catch (err) {
      throw new SeedError(`is not valid JSON: ${(err as Error).message}`);
    }
  }
  const { parse, YAMLParseError } = await import('yaml');
  try {
    // uniqueKeys: a key given twice is a mistake, not "the last one wins"; few aliases: no billion laughs.
    return parse(text, { uniqueKeys: true, maxAliasCount: 100, prettyErrors: true });
  } catch (err) {
    if (err instanceof YAMLParseError) {
      const at = err.linePos?.[0];
      const message = err.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
      throw new SeedError(`is not valid YAML${at ? ` (line ${at.line}, column ${at.col})` : ''}: ${message}`);
    }
    throw new SeedError(`is not valid YAML: ${(err as Error).message}`);
  }
}

/** The starter seed: every kind of entry once, with what each field takes. */
export const STARTER_YAML = `# A seed for the smslink emulator: what \`smslink serve --seed FILE\` starts
# with, and returns to on every reset (POST /_emulator/reset, or Reset in the
# inspector). Every value is checked with the rules the service applies; a
# bad one stops serve with the entry and the rule named.

# Accepted API keys, each its own account (serve's --api-key keys are
# accepted too, after these).
keys: [test-key-1, test-key-2]

# Registered sender IDs. A message's \`from\` must be one of them (or of
# serve's --sender); without \`from\` it comes from the shared sender SMSLINK.
senders: [MyShop]

# Short links, each the first key's unless it names another with key:.
#   status: active or inactive (1 or 0); moderatorStatus: approved or blocked
#   expirationDate: YYYY-MM-DD, the link works until the end of that day
#   comment: at most 255 characters; clicks: visits already made
#   code: a fixed code (3 to 16 letters and digits), so a test knows the
#         short link in advance; otherwise a random one
links:
  - { fullLink: https://example.com/spring, code: spring, comment: spring sale, clicks: 3 }
  - { fullLink: https://example.com/old, status: inactive, expirationDate: 2030-01-31 }
  - { fullLink: https://example.com/blocked, moderatorStatus: blocked, key: test-key-2 }

# Campaigns and their links, as Link/GetLinks answers them.
campaigns:
  - name: autumn
    links:
      - { fullLink: https://example.com/autumn, clicks: 1 }

# Messages already sent. to: 7 to 15 digits (a leading +, spaces and dashes
# are removed); status: NEW, ENQUEUD, ACCEPTD, PDLIVRD, DELIVRD (the
# default), UNDELIV, REJECTD, EXPIRED or DELETED, kept as given; name: the
# name of its campaign; ago: how many seconds before the start it reached
# its status (default 0). Another number than the guide's 77011234567, so
# that \`inbox wait --to +77011234567\` waits for what your app sends.
messages:
  - { to: "77015550100", text: "Your code is 4711", from: MyShop, status: DELIVRD }
  - { to: "77015550100", text: "Spring sale: http://127.0.0.1:8080/spring" }
  - { to: "77010001111", text: "This one did not arrive", status: UNDELIV, name: reminders, ago: 86400 }
`;

/**
 * Writes the starter seed to `path` (JSON, without the comments, when the
 * name ends in .json). Refuses to replace a file unless `force`.
 */
export async function writeStarterSeed(path: string, force: boolean): Promise<void> {
  let text = STARTER_YAML;
  if (extname(path).toLowerCase() === '.json') {
    const { parse } = await import('yaml');
    text = `${JSON.stringify(parse(STARTER_YAML), null, 2)}\n`;
  }
  writeFileSync(path, text, { flag: force ? 'w' : 'wx' });
}
