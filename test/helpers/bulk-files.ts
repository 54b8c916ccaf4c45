// What the bulk tests share: a recording server with the fake service behind
// it for each test, a private folder for input files, and the files' rows.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { fakeService, type FakeService } from './fake-service.js';
import { startRecordingServer, type RecordingServer } from './recording-server.js';
import { tempDir } from './run-cli.js';

export const BULK_KEY = 'BulkKey0123456789abcdefABCDEF0123456789ab';

export interface BulkService {
  server: RecordingServer;
  svc: FakeService;
  /** SMSLINK_BASE_URL and SMSLINK_API_KEY of the service. */
  env: Record<string, string>;
  /** Writes a file into this test's folder; returns its path. */
  file(name: string, text: string): string;
}

/** Starts the service before each test of the file and closes it after. */
export function useBulkService(): BulkService {
  let dir = '';
  const service = {
    file(name: string, text: string): string {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    },
  } as BulkService;
  beforeEach(async () => {
    service.server = await startRecordingServer();
    service.svc = fakeService(service.server);
    service.env = { SMSLINK_BASE_URL: service.server.url, SMSLINK_API_KEY: BULK_KEY };
    dir = tempDir();
  });
  afterEach(() => service.server.close());
  return service;
}

/** n full links, https://example.com/p1 ... */
export const links = (n: number, from = 1) => Array.from({ length: n }, (_, i) => `https://example.com/p${from + i}`);
/** A CSV of links with a comment per row. */
export const csvOf = (urls: string[]) => `fullLink,comment\n${urls.map((u, i) => `${u},row ${i + 1}`).join('\n')}\n`;
/** NDJSON output as objects. */
export const ndjson = (text: string) => text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
