// The SIP trunk as a kind of connection: a PBX or SBC on the customer's network (or a SIP provider),
// reached straight from this process with no media server in between.
import { mediaClock } from "../../voice/media/media-clock.ts";
import type { CarrierKind } from "../kind.ts";
import { SipCarrier } from "./carrier.ts";
import { prepareSip, readSip } from "./settings.ts";

export function sipKind(): CarrierKind {
  return {
    kind: "sip",
    summary:
      "A SIP trunk to a PBX, SBC or SIP provider (UDP or TCP, G.711, RFC 4733 keys). Settings: trunk (host[:port], required), transport, domain, listen_host, listen_port, public_address, nodes (per node of a cluster, by --node-name: its own listen_host, listen_port and public_address), rtp_port_min/max, codecs, register, register_expires, ring_timeout_seconds, strip_plus, keepalive_seconds, allowed_sources. Credentials: username and password for digest authentication (and registration), or none for a trunk that trusts our IP.",
    listens: true,
    prepare: (input) => prepareSip(input),
    callbackUrls: () => ({}),
    create(connection, env) {
      const credentials = connection.credentials.username ? { username: connection.credentials.username, password: connection.credentials.password ?? "" } : null;
      return new SipCarrier(readSip(connection.settings, connection.credentials, env.nodeName), {
        workspaceId: connection.workspaceId,
        connectionId: connection.id,
        credentials,
        inbound: env.inbound,
        clock: mediaClock,
        log: env.log,
      });
    },
  };
}
