// The carriers of this instance: every kind it knows, and each connection built into a live carrier
// on first use (rebuilt when the connection changes, closed when it goes).
import type { AppContext } from "../core/context.ts";
import type { CarrierEnv, CarrierKind } from "./kind.ts";
import { connectionRowsOfKinds, findConnectionRow, findConnectionRowById, SIMULATED_CONNECTION_ID, simulatedConnection, unsealConnection } from "./connections.ts";
import type { Carrier, CarrierConnection } from "./types.ts";

export class CarrierRegistry {
  private readonly byKind = new Map<string, CarrierKind>();
  private readonly live = new Map<string, { carrier: Carrier; updatedAt: number }>();
  private env: CarrierEnv | null = null;
  private listening = false;

  constructor(
    private readonly ctx: AppContext,
    kinds: CarrierKind[],
  ) {
    for (const kind of kinds) this.byKind.set(kind.kind, kind);
    if (!this.byKind.has("simulated")) throw new Error("the simulated carrier kind is required: it is every workspace's default connection");
  }

  /** The inbound path and logger every carrier gets (they are built after the registry, and need it). */
  attach(env: CarrierEnv): void {
    this.env = env;
  }

  /** Builds every connection whose kind takes calls on its own socket (SIP trunks), so they answer from the start. */
  listen(): void {
    this.listening = true;
    this.resync();
  }

  /**
   * Brings the listening carriers in step with the stored connections: one added, changed or removed
   * through another node of a cluster is bound, rebound or closed here too (server.ts runs it every few seconds).
   */
  resync(): void {
    if (!this.listening) return;
    const kinds = this.kinds().filter((kind) => kind.listens).map((kind) => kind.kind);
    const rows = connectionRowsOfKinds(this.ctx, kinds);
    for (const row of rows) {
      if (this.live.get(row.id)?.updatedAt === row.updatedAt) continue;
      try {
        this.carrierOf(unsealConnection(this.ctx, row));
      } catch (error) {
        this.ctx.logger.error("a listening carrier connection could not be built", { connection_id: row.id, error: (error as Error).message });
      }
    }
    const stored = new Set(rows.map((row) => row.id));
    for (const [id, { carrier }] of this.live) {
      if (stored.has(id) || !kinds.includes(carrier.kind)) continue;
      carrier.close();
      this.live.delete(id);
    }
  }

  kinds(): CarrierKind[] {
    return [...this.byKind.values()];
  }

  kind(name: string): CarrierKind | undefined {
    return this.byKind.get(name);
  }

  /** A workspace's connection (the built-in simulated one included), or undefined. */
  connection(workspaceId: string, id: string): CarrierConnection | undefined {
    if (id === SIMULATED_CONNECTION_ID) return simulatedConnection(workspaceId);
    const row = findConnectionRow(this.ctx, workspaceId, id);
    return row ? unsealConnection(this.ctx, row) : undefined;
  }

  /** The live carrier of a workspace's connection, or undefined when the workspace has no such connection. */
  carrier(workspaceId: string, id: string): Carrier | undefined {
    const connection = this.connection(workspaceId, id);
    return connection ? this.carrierOf(connection) : undefined;
  }

  /** A stored connection of any workspace by id, with its live carrier: for callbacks, which the carrier's signature authenticates. */
  byId(id: string): { connection: CarrierConnection; carrier: Carrier } | undefined {
    const row = id === SIMULATED_CONNECTION_ID ? undefined : findConnectionRowById(this.ctx, id);
    if (!row || !this.byKind.has(row.kind)) return undefined;
    const connection = unsealConnection(this.ctx, row);
    return { connection, carrier: this.carrierOf(connection) };
  }

  /** Every workspace's stored connections of one kind. */
  ofKind(kind: string): CarrierConnection[] {
    return connectionRowsOfKinds(this.ctx, [kind]).map((row) => unsealConnection(this.ctx, row));
  }

  private carrierOf(connection: CarrierConnection): Carrier {
    // The built-in connection is the same carrier in every workspace.
    const key = connection.id;
    const cached = this.live.get(key);
    if (cached && cached.updatedAt === connection.updatedAt) return cached.carrier;
    cached?.carrier.close();
    const kind = this.byKind.get(connection.kind);
    if (!kind) throw new Error(`carrier connection ${connection.id} is of kind ${connection.kind}, which this build does not have`);
    if (!this.env) throw new Error("the carrier registry has no inbound path attached yet");
    const carrier = kind.create(connection, this.env);
    this.live.set(key, { carrier, updatedAt: connection.updatedAt });
    return carrier;
  }

  /** A connection changed or went: its live carrier is closed, and rebuilt now if it listens (else on next use). */
  changed(workspaceId: string, id: string): void {
    this.live.get(id)?.carrier.close();
    this.live.delete(id);
    const connection = this.listening ? this.connection(workspaceId, id) : undefined;
    if (connection && this.byKind.get(connection.kind)?.listens) this.carrierOf(connection);
  }

  close(): void {
    this.listening = false;
    for (const { carrier } of this.live.values()) carrier.close();
    this.live.clear();
  }
}
