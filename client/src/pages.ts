/** A list answer of the service: `{data, pageInfo: {nextCursor}}` (null on the last page). */
export type Page<T> = { data: T[]; pageInfo: { nextCursor: string | null } };

/** Every item of a paged list, fetching the next page only when the caller gets there. */
export async function* paginate<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>): AsyncGenerator<T> {
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    yield* page.data;
    cursor = page.pageInfo.nextCursor ?? undefined;
  } while (cursor);
}
