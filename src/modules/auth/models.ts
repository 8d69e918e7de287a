import { t } from "elysia";
import { Email, Timestamp } from "../../http/models.ts";
import { toIso } from "../../lib/time.ts";
import { ApiKey } from "../api-keys/models.ts";
import { Workspace } from "../workspaces/models.ts";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "./passwords.ts";
import type { SessionRow, UserRow } from "./repo.ts";
import { nameSchemas } from "../../lib/schema-names.ts";

const Password = t.String({ minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH, description: `At least ${PASSWORD_MIN_LENGTH} characters` });
const Role = t.Union([t.Literal("owner"), t.Literal("admin"), t.Literal("member"), t.Literal("viewer")]);

export const User = t.Object({
  id: t.String({ description: "`usr_…`" }),
  object: t.Literal("user"),
  email: t.String(),
  name: t.Union([t.String(), t.Null()]),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const Tokens = t.Object({
  access_token: t.String({ description: "JWT; send as `Authorization: Bearer …`" }),
  refresh_token: t.String({ description: "Opaque; rotates on every refresh. Reusing an old one revokes the session." }),
  expires_in: t.Integer({ description: "Seconds until the access token expires" }),
  token_type: t.Literal("Bearer"),
  workspace_id: t.Union([t.String(), t.Null()], { description: "Workspace the access token acts in (switch per request with X-Workspace-Id)" }),
});

export const Registered = t.Composite([t.Object({ user: User, workspace: Workspace }), Tokens]);

export const RegisterBody = t.Object(
  { email: Email, password: Password, name: t.Optional(t.String({ minLength: 1, maxLength: 100 })), workspace_name: t.Optional(t.String({ minLength: 1, maxLength: 100 })) },
  { additionalProperties: false },
);

export const LoginBody = t.Object(
  { email: t.String({ minLength: 1, maxLength: 254 }), password: t.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH }), workspace_id: t.Optional(t.String()) },
  { additionalProperties: false },
);

export const RefreshBody = t.Object({ refresh_token: t.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false });
export const ProfileUpdate = t.Object({ name: t.Union([t.String({ minLength: 1, maxLength: 100 }), t.Null()]) }, { additionalProperties: false });
export const PasswordChange = t.Object({ current_password: t.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH }), new_password: Password }, { additionalProperties: false });
export const ForgotBody = t.Object({ email: t.String({ minLength: 1, maxLength: 254 }) }, { additionalProperties: false });
export const ResetBody = t.Object({ token: t.String({ minLength: 1, maxLength: 200 }), password: Password }, { additionalProperties: false });

export const MeUser = t.Object({
  object: t.Literal("user"),
  id: t.String(),
  email: t.String(),
  name: t.Union([t.String(), t.Null()]),
  created_at: Timestamp,
  updated_at: Timestamp,
  role: Role,
  workspace: Workspace,
});

export const MeApiKey = t.Object({ object: t.Literal("api_key"), id: t.String(), api_key: ApiKey, workspace: Workspace });
export const Me = t.Union([MeUser, MeApiKey], { description: "The signed-in user, or for an API key the key itself; both with their workspace" });

export const Session = t.Object({
  id: t.String({ description: "`ses_…`" }),
  object: t.Literal("session"),
  current: t.Boolean({ description: "True for the session making this request" }),
  ip: t.Union([t.String(), t.Null()]),
  user_agent: t.Union([t.String(), t.Null()]),
  created_at: Timestamp,
  last_used_at: Timestamp,
  expires_at: Timestamp,
});

export function userJson(row: UserRow) {
  return { id: row.id, object: "user" as const, email: row.email, name: row.name, created_at: toIso(row.createdAt), updated_at: toIso(row.updatedAt) };
}

export function sessionJson(row: SessionRow, currentId: string) {
  return {
    id: row.id,
    object: "session" as const,
    current: row.id === currentId,
    ip: row.ip,
    user_agent: row.userAgent,
    created_at: toIso(row.createdAt),
    last_used_at: toIso(row.lastUsedAt),
    expires_at: toIso(row.expiresAt),
  };
}

nameSchemas({ User, Tokens, Registered, RegisterRequest: RegisterBody, LoginRequest: LoginBody, RefreshRequest: RefreshBody, ProfileUpdate, PasswordChange, ForgotPasswordRequest: ForgotBody, ResetPasswordRequest: ResetBody, MeUser, MeApiKey, Me, Session });
