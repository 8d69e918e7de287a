/** OpenAPI `detail` for a route: operationId doubles as the audit log's action name. */
export function docsFor(tag: string) {
  return (operationId: string, summary: string, description?: string) => ({
    operationId,
    summary,
    tags: [tag],
    ...(description ? { description } : {}),
  });
}
