// What the local carrier servers (Twilio, Telnyx) share: an HTTP server on a loopback port, the calls
// they hold by the carrier's id, and a way for a test to wait for the next call placed or received.

export abstract class FakeCarrierServer<C extends { socket: WebSocket | null }> {
  readonly calls = new Map<string, C>();
  private server: ReturnType<typeof Bun.serve> | null = null;
  private readonly waiting: ((call: C) => void)[] = [];

  get url(): string {
    return `http://127.0.0.1:${this.server!.port}`;
  }

  start(): this {
    this.server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => this.handle(request) });
    return this;
  }

  stop(): void {
    for (const call of this.calls.values()) call.socket?.close();
    this.server?.stop(true);
  }

  /** The next call the carrier places or receives. */
  nextCall(): Promise<C> {
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  protected track(call: C): C {
    this.calls.set(this.idOf(call), call);
    this.waiting.shift()?.(call);
    return call;
  }

  /** The carrier's own id for a call (Twilio's CallSid, Telnyx's call_control_id). */
  protected abstract idOf(call: C): string;
  protected abstract handle(request: Request): Promise<Response>;
}
