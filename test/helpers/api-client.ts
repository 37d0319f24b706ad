/** A tiny HTTP client for the API under test: what curl would send, nothing more. */
export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface ApiRequest {
  method?: string;
  body?: unknown;
  /** Raw body text, sent as-is (for malformed JSON tests). */
  rawBody?: string;
  key?: string | null;
  headers?: Record<string, string>;
}

export function apiClient(baseUrl: string, defaultKey?: string) {
  return async function call<T = any>(path: string, req: ApiRequest = {}): Promise<ApiResponse<T>> {
    const key = req.key === undefined ? defaultKey : req.key;
    const headers: Record<string, string> = { ...req.headers };
    if (key !== null && key !== undefined) headers.authorization = `Bearer ${key}`;
    let payload: string | undefined = req.rawBody;
    if (req.body !== undefined) {
      payload = JSON.stringify(req.body);
    }
    if (payload !== undefined) headers['content-type'] ??= 'application/json';
    const res = await fetch(new URL(path, baseUrl), { method: req.method ?? (payload ? 'POST' : 'GET'), headers, body: payload });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // non-JSON bodies are returned as text so tests can show them
    }
    return { status: res.status, body: body as T, headers: res.headers };
  };
}
