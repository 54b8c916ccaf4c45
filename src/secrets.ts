// The secrets this process knows (API keys) and the one function that takes
// them out of any text before it is shown or written: messages, answers that
// echo the request, journals, crash output.

/** Each secret, and its URL-encoded form when that differs. */
const SECRETS = new Map<string, string | undefined>();

/** Shorter values are not treated as secrets: they could be ordinary words in the data (the emulator's public key is "sandbox"). */
export const MIN_SECRET_LENGTH = 12;

export function registerSecret(secret: string | undefined): void {
  if (!secret || secret.length < MIN_SECRET_LENGTH || SECRETS.has(secret)) return;
  const encoded = encodeURIComponent(secret);
  SECRETS.set(secret, encoded === secret ? undefined : encoded);
}

/** Replaces every known secret (and its URL-encoded form) with ***. */
export function redact(text: string): string {
  let out = text;
  for (const [secret, encoded] of SECRETS) {
    if (out.includes(secret)) out = out.split(secret).join('***');
    if (encoded !== undefined && out.includes(encoded)) out = out.split(encoded).join('***');
  }
  return out;
}
