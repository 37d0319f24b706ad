/**
 * Connection and framing headers are undici's to set (it rejects some outright): a value a user
 * supplied for one of these could only break the request, so callers drop them.
 */
export const CONNECTION_HEADERS: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'expect',
  'content-length',
]);
