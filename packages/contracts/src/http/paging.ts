import { z } from 'zod';
import { positiveIntegerUpTo } from './integers';

// One paging convention for every list: `page` (from 1) and `per_page` in, and `meta` out with
// the page to ask for next. `limit` is the older name of `per_page` some lists took.

export const PageMetaSchema = z
  .object({
    /** Items matching the request over all pages. */
    total: z.number().int().nonnegative(),
    page: z.number().int().positive(),
    /** Items per page; a whole list answered at once says how many it holds. */
    per_page: z.number().int().nonnegative(),
    /** Ask for this `page` next (same `per_page` and filters); null on the last page. */
    next_page: z.number().int().positive().nullable(),
  })
  .describe('Paging: ask again with `page=next_page` until next_page is null.');
export type PageMeta = z.infer<typeof PageMetaSchema>;

/** Far past any real list; keeps the number of items skipped an exact integer. */
export const MAX_PAGE = 1_000_000;

/** `page`, `per_page` and its older name `limit`, for a list of at most `max` items a page. */
export function pageQuery(options: { max: number; defaultPerPage?: number }) {
  const perPage = options.defaultPerPage
    ? `at most ${options.max} (default ${options.defaultPerPage})`
    : `at most ${options.max}; without page or per_page the whole list is answered`;
  return {
    page: positiveIntegerUpTo(MAX_PAGE).optional().describe('Page number, from 1 (default 1).'),
    per_page: positiveIntegerUpTo(options.max).optional().describe(`Items per page, ${perPage}.`),
    limit: positiveIntegerUpTo(options.max)
      .optional()
      .describe('Older name of per_page (per_page wins when both are given).'),
  };
}

export interface PagingInput {
  page?: number;
  per_page?: number;
  limit?: number;
}

export interface PageRequest {
  page: number;
  per_page: number;
  /** Items before this page. */
  skip: number;
}

/** True when the caller named a page or its size; lists that answer whole without one check it. */
export const asksForPage = (query: PagingInput): boolean =>
  query.page !== undefined || query.per_page !== undefined || query.limit !== undefined;

/** The page asked for, `defaultPerPage` items a page when no size is given. */
export function pageRequest(query: PagingInput, defaultPerPage: number): PageRequest {
  const page = query.page ?? 1;
  const per_page = query.per_page ?? query.limit ?? defaultPerPage;
  return { page, per_page, skip: (page - 1) * per_page };
}

/** `meta` of one page of a list of `total` items. */
export function pageMeta(total: number, request: PageRequest): PageMeta {
  return {
    total,
    page: request.page,
    per_page: request.per_page,
    next_page: request.page * request.per_page < total ? request.page + 1 : null,
  };
}

/** `meta` of a list answered whole. */
export const wholeListMeta = (total: number): PageMeta => ({
  total,
  page: 1,
  per_page: total,
  next_page: null,
});

/** One page of a list already read whole (short lists: groups, templates, webhooks). */
export function pageOfList<T>(items: T[], request: PageRequest): { items: T[]; meta: PageMeta } {
  return {
    items: items.slice(request.skip, request.skip + request.per_page),
    meta: pageMeta(items.length, request),
  };
}

/** A short list read whole: the page asked for, or all of it when the caller named no page. */
export function pageOrWholeList<T>(
  items: T[],
  paging: PagingInput,
  defaultPerPage: number,
): { items: T[]; meta: PageMeta } {
  return asksForPage(paging)
    ? pageOfList(items, pageRequest(paging, defaultPerPage))
    : { items, meta: wholeListMeta(items.length) };
}
