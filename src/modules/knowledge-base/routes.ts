import { Elysia, status, t, type Static } from "elysia";
import type { HttpContext } from "../../http/context.ts";
import { authPlugin } from "../../http/auth.ts";
import { docsFor } from "../../http/docs.ts";
import { IdParam, NoContent, noContent } from "../../http/models.ts";
import { ListOf, listQuery, pageRequest, toPage } from "../../http/pagination.ts";
import { MAX_FILE_BYTES } from "../../knowledge/indexing.ts";
import { searchKnowledge } from "../../knowledge/search.ts";
import { KnowledgeBase, KnowledgeBaseCreate, KnowledgeBaseUpdate, Query, QueryResult, Source, SourceCreate, knowledgeBaseJson, sourceJson } from "./models.ts";
import { listKnowledgeBases, listSources } from "./repo.ts";
import * as service from "./service.ts";

const doc = docsFor("Knowledge bases");
const SourceParams = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }), src: t.String({ minLength: 1, maxLength: 64 }) });

export function knowledgeBaseRoutes(ctx: HttpContext, agentsUsing: (workspaceId: string, id: string) => { id: string; name: string }[]) {
  const kbJson = (row: Parameters<typeof knowledgeBaseJson>[0]) => knowledgeBaseJson(row, service.sourceCounts(ctx, row.id));
  const byCreation = (row: { createdAt: number; id: string }) => ({ at: row.createdAt, id: row.id });
  const search = async (workspaceId: string, id: string, input: Static<typeof Query>) => {
    service.getKnowledgeBase(ctx, workspaceId, id);
    return { data: await searchKnowledge(ctx, workspaceId, [id], input.query, { topK: input.top_k ?? 5, minScore: input.min_score, mode: input.mode }) };
  };
  return new Elysia({ prefix: "/v1/knowledge-base" })
    .use(authPlugin(ctx))
    .post("/", ({ principal, body }) => status(201, kbJson(service.createKnowledgeBase(ctx, principal.workspaceId, body))), {
      auth: "write",
      body: KnowledgeBaseCreate,
      response: { 201: KnowledgeBase },
      detail: doc("createKnowledgeBase", "Create knowledge base"),
    })
    .get(
      "/",
      ({ principal, query }) => {
        const page = pageRequest(query);
        return toPage(listKnowledgeBases(ctx.db, principal.workspaceId, page), page, byCreation, kbJson);
      },
      { auth: "read", query: t.Object(listQuery), response: { 200: ListOf(KnowledgeBase) }, detail: doc("listKnowledgeBases", "List knowledge bases") },
    )
    .get("/:id", ({ principal, params }) => kbJson(service.getKnowledgeBase(ctx, principal.workspaceId, params.id)), {
      auth: "read",
      params: IdParam,
      response: { 200: KnowledgeBase },
      detail: doc("getKnowledgeBase", "Get one"),
    })
    .patch("/:id", ({ principal, params, body }) => kbJson(service.updateKnowledgeBase(ctx, principal.workspaceId, params.id, body)), {
      auth: "write",
      params: IdParam,
      body: KnowledgeBaseUpdate,
      response: { 200: KnowledgeBase },
      detail: doc("updateKnowledgeBase", "Rename, chunking settings"),
    })
    .delete(
      "/:id",
      ({ principal, params }) => {
        service.deleteKnowledgeBase(ctx, principal.workspaceId, params.id, agentsUsing);
        return noContent();
      },
      { auth: "write", params: IdParam, response: { 204: NoContent }, detail: doc("deleteKnowledgeBase", "Delete with all sources") },
    )
    .post("/:id/sources", async ({ principal, params, body }) => status(202, sourceJson(await service.addSource(ctx, principal.workspaceId, params.id, body))), {
      auth: "write",
      params: IdParam,
      body: SourceCreate,
      response: { 202: Source },
      detail: { ...doc("addKnowledgeSource", "Add a source: text, file upload, or URL"), "x-body-types": ["multipart/form-data"], "x-max-body-bytes": MAX_FILE_BYTES + 64 * 1024 },
    })
    .get(
      "/:id/sources",
      ({ principal, params, query }) => {
        service.getKnowledgeBase(ctx, principal.workspaceId, params.id);
        const page = pageRequest(query);
        return toPage(listSources(ctx.db, principal.workspaceId, params.id, page), page, byCreation, sourceJson);
      },
      { auth: "read", params: IdParam, query: t.Object(listQuery), response: { 200: ListOf(Source) }, detail: doc("listKnowledgeSources", "List sources with indexing status") },
    )
    .get("/:id/sources/:src", ({ principal, params }) => sourceJson(service.getSource(ctx, principal.workspaceId, params.id, params.src)), {
      auth: "read",
      params: SourceParams,
      response: { 200: Source },
      detail: doc("getKnowledgeSource", "One source"),
    })
    .delete(
      "/:id/sources/:src",
      ({ principal, params }) => {
        service.deleteSource(ctx, principal.workspaceId, params.id, params.src);
        return noContent();
      },
      { auth: "write", params: SourceParams, response: { 204: NoContent }, detail: doc("deleteKnowledgeSource", "Delete a source") },
    )
    .post("/:id/sources/:src/reindex", ({ principal, params }) => status(202, sourceJson(service.reindexSource(ctx, principal.workspaceId, params.id, params.src))), {
      auth: "write",
      params: SourceParams,
      response: { 202: Source },
      detail: doc("reindexKnowledgeSource", "Re-chunk and re-embed"),
    })
    .post(
      "/:id/query",
      ({ principal, params, body }) => search(principal.workspaceId, params.id, body),
      { auth: "read", params: IdParam, body: Query, response: { 200: QueryResult }, detail: doc("queryKnowledgeBase", "Semantic search") },
    )
    .get(
      "/:id/query",
      ({ principal, params, query }) => search(principal.workspaceId, params.id, query),
      {
        auth: "read",
        params: IdParam,
        query: Query,
        response: { 200: QueryResult },
        detail: doc("searchKnowledgeBase", "Semantic search as a GET (`?query=…&top_k=`): the form read-only keys use"),
      },
    );
}
