/**
 * Request headers a user asks us to send (page requests, map, webhooks). Names must be HTTP tokens
 * and values free of line breaks and NUL: Chromium and undici refuse anything else, and would
 * turn the request into a failure of the page instead of the 400 it is.
 */
import { z } from 'zod';

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const FIELD_VALUE = /^[^\r\n\0]*$/;

export const httpHeadersSchema = z.record(
  z.string().max(256).regex(TOKEN, 'Header names must be HTTP tokens (letters, digits and !#$%&\'*+-.^_`|~)'),
  z.string().max(8192).regex(FIELD_VALUE, 'Header values must not contain line breaks or NUL'),
);
