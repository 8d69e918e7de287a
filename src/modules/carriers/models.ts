import { t } from "elysia";
import { Timestamp } from "../../http/models.ts";
import { nameSchemas } from "../../lib/schema-names.ts";
import { toIso } from "../../lib/time.ts";
import type { CarrierConnection, CarrierStatus } from "../../telephony/types.ts";

const Settings = t.Record(t.String(), t.Unknown(), { description: "What the carrier needs that is not secret (see each kind in the README)" });
const Credentials = t.Record(t.String(), t.String({ minLength: 1, maxLength: 4096 }), { description: "Secrets, stored encrypted with the instance key and never returned" });

/** The schemas, for the carrier kinds this build has. */
export function carrierModels(kinds: [string, ...string[]], summaries: string) {
  const Kind = t.Union(kinds.map((kind) => t.Literal(kind)) as [ReturnType<typeof t.Literal<string>>], { description: summaries });
  const models = {
    CarrierConnectionJson: t.Object({
      id: t.String({ description: "`car_…`, or `simulated` for the built-in carrier every workspace has" }),
      object: t.Literal("carrier_connection"),
      name: t.String(),
      kind: Kind,
      settings: Settings,
      credentials: t.Record(t.String(), t.String(), { description: "Masked: each secret's last four characters" }),
      callback_urls: t.Record(t.String(), t.String(), { description: "What to configure at the carrier so its calls and events reach Parley" }),
      built_in: t.Boolean({ description: "true for the simulated carrier, which cannot be changed or removed" }),
      status: t.Object(
        {
          state: t.Union(["ready", "starting", "listening", "registering", "registered", "unreachable", "failed"].map((state) => t.Literal(state)) as [ReturnType<typeof t.Literal<string>>]),
          detail: t.Union([t.String(), t.Null()]),
          listen_port: t.Union([t.Integer({ minimum: 1, maximum: 65535 }), t.Null()], {
            description: "The port a SIP trunk listens on, once bound: the one chosen when `settings.listen_port` is 0. null for kinds that do not listen and before the port is bound",
          }),
        },
        { description: "How the live connection is doing: a SIP trunk listening, registered, unreachable by OPTIONS, or failed to start (with why)" },
      ),
      created_at: t.Union([Timestamp, t.Null()]),
      updated_at: t.Union([Timestamp, t.Null()]),
    }),
    CarrierCreate: t.Object(
      { name: t.String({ minLength: 1, maxLength: 100 }), kind: Kind, settings: t.Optional(Settings), credentials: t.Optional(Credentials) },
      { additionalProperties: false },
    ),
    CarrierUpdate: t.Partial(
      t.Object({
        name: t.String({ minLength: 1, maxLength: 100 }),
        settings: t.Record(t.String(), t.Unknown(), { description: "Merged over the current settings; a null value removes one" }),
        credentials: t.Record(t.String(), t.Union([t.String({ minLength: 1, maxLength: 4096 }), t.Null()]), { description: "Merged over the current secrets; a null value removes one" }),
      }),
      { additionalProperties: false },
    ),
  };
  nameSchemas({ CarrierConnection: models.CarrierConnectionJson, CarrierConnectionCreate: models.CarrierCreate, CarrierConnectionUpdate: models.CarrierUpdate }, { rebuilt: true });
  return models;
}

const mask = (secret: string) => `••••${secret.length > 8 ? secret.slice(-4) : ""}`;

export function carrierJson(connection: CarrierConnection, extra: { createdAt: number | null; callbackUrls: Record<string, string>; builtIn: boolean; status: CarrierStatus }) {
  return {
    id: connection.id,
    object: "carrier_connection" as const,
    name: connection.name,
    kind: connection.kind,
    settings: connection.settings,
    credentials: Object.fromEntries(Object.entries(connection.credentials).map(([key, secret]) => [key, mask(secret)])),
    callback_urls: extra.callbackUrls,
    built_in: extra.builtIn,
    status: { state: extra.status.state, detail: extra.status.detail, listen_port: extra.status.listenPort ?? null },
    created_at: extra.createdAt === null ? null : toIso(extra.createdAt),
    updated_at: extra.builtIn ? null : toIso(connection.updatedAt),
  };
}
