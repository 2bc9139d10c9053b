import type { RequestHandler } from 'express';

const DEFAULT_VERSION = 'v23.0';
const VERSION_PREFIX = /^\/(v\d+\.0)(?=\/|\?|$)/;

/** Graph accepts `/v23.0/…`, `/v26.0/…` or no version at all: the rest of the path is the same. */
export const stripApiVersion: RequestHandler = (req, res, next) => {
  const match = VERSION_PREFIX.exec(req.url);
  if (match) {
    const rest = req.url.slice(match[0].length);
    req.url = rest.startsWith('/') ? rest : `/${rest}`;
  }
  res.setHeader('facebook-api-version', match?.[1] ?? DEFAULT_VERSION);
  next();
};
