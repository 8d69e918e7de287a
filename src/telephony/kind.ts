// A kind of carrier (simulated, SIP trunk, Twilio, Telnyx): how its connections are checked, what
// they become when used, and the HTTP/WebSocket routes the carrier calls back on.
import type { AnyElysia } from "elysia";
import type { HttpContext } from "../http/context.ts";
import type { OutboundPolicy } from "../net/outbound.ts";
import type { Carrier, CarrierConnection, InboundCalls } from "./types.ts";

/** What a connection is stored with, once its kind has checked and normalised it. */
export interface PreparedConnection {
  settings: Record<string, unknown>;
  credentials: Record<string, string>;
}

/** What the composition root hands every carrier it builds. */
export interface CarrierEnv {
  inbound: InboundCalls;
  log: (message: string) => void;
  /** Where carriers reach us (--public-url, or the bound address): known once the server listens. */
  publicUrl: () => string;
  /**
   * Where this node is reached directly (--node-url, else the public URL): a call's media stream and its
   * own callbacks come here, to the node that holds its leg, whichever node a load balancer sent the webhook to.
   */
  nodeUrl: () => string;
  /** This node's name (--node-name): the key of its own settings in a connection's per-node map (SIP). */
  nodeName: string;
  /** How requests to a carrier's API go out (private addresses only where the operator allows them). */
  outbound: OutboundPolicy;
}

/** Where a connection is checked: the URL the carrier must call back, and whether private URLs are allowed. */
export interface PrepareEnv {
  publicUrl: string;
  allowPrivateUrls: boolean;
}

/** What a kind's own routes reach: the inbound path, and connections by id (a callback names only its connection). */
export interface CarrierRouteServices {
  inbound: InboundCalls;
  /** A connection of any workspace by its id, with its live carrier. */
  connection(id: string): { connection: CarrierConnection; carrier: Carrier } | undefined;
  /** Every workspace's connections of one kind (a socket that names no connection is checked against each). */
  connectionsOfKind(kind: string): CarrierConnection[];
}

export interface CarrierKind {
  readonly kind: string;
  /** One sentence for the API reference: what a connection of this kind is, and what it needs. */
  readonly summary: string;
  /**
   * Checks settings and credentials (422 naming the field), merged over the current ones on update.
   * `publicUrl` is where the carrier must reach us: kinds that call back refuse one they cannot use.
   */
  prepare(input: PreparedConnection, env: PrepareEnv): PreparedConnection;
  /** The callback URLs to configure at the carrier for this connection (none for most kinds). */
  callbackUrls(connection: CarrierConnection, publicUrl: string): Record<string, string>;
  /** Whether its carriers take calls on a socket of their own, so they are built when the server starts, not on first use. */
  readonly listens?: boolean;
  /** Builds the live carrier; it is rebuilt when the connection changes. */
  create(connection: CarrierConnection, env: CarrierEnv): Carrier;
  /** The carrier's own routes; the app mounts them under `base` (/v1/telephony/<kind>). */
  routes?(ctx: HttpContext, services: CarrierRouteServices, base: string): AnyElysia;
}
