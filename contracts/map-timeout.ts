/**
 * The map's time budget when the request sets no `timeout`. Apart from the options' schema, because
 * the map workflow needs it too: every new workflow evaluates the modules its bundle imports, and
 * the schema would bring zod with it (about 15 ms per workflow on a 2-core machine).
 */
export const MAP_DEFAULT_TIMEOUT_MS = 60_000;
