// The newest-first lists prepared in their two forms (first page, page after a cursor): each walks
// to its end a row at a time and two at a time, every row once, newest first, in both forms.
// (Agents, API keys, providers, widgets and phone numbers walk their pages in their own files.)
import { describe, expect, test } from "bun:test";
import { registerUser, serverWithUser } from "../helpers/fixtures.ts";
import { walkPages } from "../helpers/pages.ts";

const s = serverWithUser("pages");
const token = () => s.user.token;

/** Creates `count` objects one after another (the server's clock moves between them) and returns their ids, newest first. */
async function created(count: number, create: (i: number) => Promise<{ status: number; body: { id: string } }>): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const res = await create(i);
    expect([201, 202]).toContain(res.status); // a knowledge source is accepted for indexing
    ids.unshift(res.body.id);
    s.server.clock.advance(1);
  }
  return ids;
}

async function expectWalks(path: string, newestFirst: string[], as = token()) {
  for (const limit of [1, 2, 100]) expect(await walkPages(s.server.api, path, as, limit)).toEqual(newestFirst);
}

describe("lists page with a cursor", () => {
  test("tools", async () => {
    const ids = await created(3, (i) => s.server.api.post("/v1/tools", { name: `lookup_${i}`, description: "Look up", url: "https://tools.example.com/x" }, { token: token() }));
    await expectWalks("/v1/tools", ids);
  });

  test("knowledge bases and their sources", async () => {
    const kbs = await created(3, (i) => s.server.api.post("/v1/knowledge-base", { name: `Notes ${i}` }, { token: token() }));
    await expectWalks("/v1/knowledge-base", kbs);
    const sources = await created(3, (i) => s.server.api.post(`/v1/knowledge-base/${kbs[0]}/sources`, { type: "text", name: `Part ${i}`, text: `Part ${i} of the notes.` }, { token: token() }));
    await expectWalks(`/v1/knowledge-base/${kbs[0]}/sources`, sources);
    await expectWalks(`/v1/knowledge-base/${kbs[1]}/sources`, []);
  });

  test("a user's workspaces", async () => {
    const user = await registerUser(s.server.api, "many-workspaces");
    s.server.clock.advance(1);
    const more = await created(2, (i) => s.server.api.post("/v1/workspaces", { name: `Branch ${i}` }, { token: user.token }));
    await expectWalks("/v1/workspaces", [...more, user.workspaceId], user.token);
  });

  test("members", async () => {
    const joined: string[] = [];
    for (let i = 0; i < 2; i++) {
      s.server.clock.advance(1);
      const invitee = await registerUser(s.server.api, `member-${i}`);
      const invite = await s.server.api.post("/v1/workspaces/current/members", { email: invitee.email, role: "viewer" }, { token: token() });
      const accepted = await s.server.api.post(`/v1/workspaces/invitations/${invite.body.token}/accept`, undefined, { token: invitee.token });
      expect(accepted.status).toBe(200);
      joined.unshift(accepted.body.id);
    }
    const all = await walkPages(s.server.api, "/v1/workspaces/current/members", token(), 100);
    expect(all.slice(0, 2)).toEqual(joined);
    await expectWalks("/v1/workspaces/current/members", all);
  });
});
