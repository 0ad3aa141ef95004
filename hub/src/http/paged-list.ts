/** The list envelope of http-interface §4.3 and §4.8: a page of `all`, where a limit of 0 means unbounded. */
export interface PagedList<T> {
  data: T[];
  total: number;
  limit: number;
  offset: number;
  hasMore: boolean;
}

export function pageOf<T>(all: readonly T[], query: { limit: number; offset: number }): PagedList<T> {
  const data = query.limit === 0 ? all.slice(query.offset) : all.slice(query.offset, query.offset + query.limit);
  return {
    data,
    total: all.length,
    limit: query.limit,
    offset: query.offset,
    hasMore: query.offset + data.length < all.length,
  };
}
