/** One page of a list: `{ data, has_more, next_cursor }`. */
export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/**
 * What a list method returns: `await` it for the first page, or `for await` over it for every item
 * across pages (each next page is fetched when the previous one is used up). Nothing is fetched until then.
 */
export class PagePromise<T> implements PromiseLike<Page<T>>, AsyncIterable<T> {
  private first: Promise<Page<T>> | null = null;

  constructor(private readonly fetchPage: (cursor: string | undefined) => Promise<Page<T>>) {}

  then<A = Page<T>, B = never>(onFulfilled?: ((page: Page<T>) => A | PromiseLike<A>) | null, onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<A | B> {
    return this.firstPage().then(onFulfilled, onRejected);
  }

  /** Every page in order. */
  async *pages(): AsyncGenerator<Page<T>> {
    let page = await this.firstPage();
    for (;;) {
      yield page;
      if (!page.has_more || !page.next_cursor) return;
      page = await this.fetchPage(page.next_cursor);
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for await (const page of this.pages()) yield* page.data;
  }

  /** Every item of every page, in one array (mind the size of what you list). */
  async all(): Promise<T[]> {
    const items: T[] = [];
    for await (const item of this) items.push(item);
    return items;
  }

  private firstPage(): Promise<Page<T>> {
    this.first ??= this.fetchPage(undefined);
    return this.first;
  }
}
