// What a run gets from outside (design rule 2): the streams, the environment,
// the clock and the interrupt signals, handed in by bin/smslink.js or a test;
// and the flags every command accepts.

import type { OutStream } from '../../output/format.js';

export interface CliIO {
  stdout: OutStream;
  stderr: OutStream;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: Record<string, string | undefined>;
  /** Aborted when the user presses Ctrl-C (or stdout is closed: reason 'stdout-closed'). */
  signal?: AbortSignal;
  /** Aborted on a second Ctrl-C: whatever is still in flight is given up at once (bulk runs). */
  stopNow?: AbortSignal;
  /** stdout is a pipe or a socket, whose reader may go away (`| head -1`). */
  readonly stdoutIsPipe?: boolean;
  now?: () => Date;
  /** Told while a pager runs: the bin then leaves Ctrl-C to the pager. */
  onPager?: (running: boolean) => void;
}

/** Options every command accepts (program-level flags). */
export interface GlobalOptions {
  apiKey?: string;
  /** Every --api-key given (serve accepts several). */
  apiKeys?: string[];
  baseUrl?: string;
  profile?: string;
  output?: string;
  json?: boolean;
  fields?: string;
  jq?: string;
  quiet?: boolean;
  verbose?: boolean;
  dryRun?: boolean;
  color?: boolean;
  timeout?: string;
  retries?: string;
  proxy?: string;
  caFile?: string;
  allowInsecureHttp?: boolean;
  showPii?: boolean;
  sandbox?: boolean;
  csvSafe?: boolean;
  pager?: boolean;
}
