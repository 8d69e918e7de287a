import { describe, expect, test } from "bun:test";
import { isPublicAddress } from "../../src/net/address-policy.ts";
import { OutboundRefused, sendOutbound } from "../../src/net/outbound.ts";
import { startReceiver } from "../helpers/webhook-receiver.ts";

const request = { method: "POST" as const, headers: {}, body: "{}", timeoutMs: 1000, maxResponseBytes: 1024 };

describe("outbound requests (SSRF guard)", () => {
  test("address classification", () => {
    for (const address of ["127.0.0.1", "10.0.0.1", "172.16.5.4", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "::1", "fe80::1", "fd00::1", "::ffff:127.0.0.1", "224.0.0.1"]) {
      expect(`${address} ${isPublicAddress(address)}`).toBe(`${address} false`);
    }
    for (const address of ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111", "172.32.0.1", "::ffff:8.8.8.8", "2001:4860:4860::8888"]) {
      expect(`${address} ${isPublicAddress(address)}`).toBe(`${address} true`);
    }
  });

  test("IPv6 forms that embed an IPv4 address are refused, whatever they embed", () => {
    const forms = [
      "::7f00:1", "[::7f00:1]", "::127.0.0.1", "::a00:1", // IPv4-compatible ::/96
      "::ffff:0:7f00:1", "[::ffff:0:7f00:1]", "::ffff:0:808:808", // SIIT ::ffff:0:0:0/96
      "64:ff9b::7f00:1", "64:ff9b::808:808", // NAT64 well-known prefix
      "64:ff9b:1::7f00:1", "[64:ff9b:1::7f00:1]", // NAT64 local-use 64:ff9b:1::/48
      "2001::7f00:1", "2001:0:4136:e378:8000:63bf:80ff:fffe", // Teredo 2001::/32
      "2002:7f00:1::", "2002:c0a8:101::1", // 6to4 2002::/16
    ];
    for (const address of forms) expect(`${address} ${isPublicAddress(address)}`).toBe(`${address} false`);
  });

  test("the address is checked after resolution: a public-looking name that resolves inside is refused before connecting", async () => {
    const receiver = startReceiver();
    const resolve = async () => [{ address: "127.0.0.1", family: 4 }];
    const url = receiver.url.replace("127.0.0.1", "hooks.example.com").replace("http:", "https:");
    await expect(sendOutbound(url, request, { allowPrivate: false, resolve })).rejects.toThrow(OutboundRefused);
    await expect(sendOutbound(url, request, { allowPrivate: false, resolve })).rejects.toThrow(/resolves to 127\.0\.0\.1/);
    const mixed = async () => [{ address: "93.184.216.34", family: 4 }, { address: "10.0.0.8", family: 4 }];
    await expect(sendOutbound(url, request, { allowPrivate: false, resolve: mixed })).rejects.toThrow(/10\.0\.0\.8/);
    expect(receiver.requests).toHaveLength(0);
    receiver.stop();
  });

  test("with private URLs allowed (dev, on-prem), loopback http works and the body is capped", async () => {
    const receiver = startReceiver(() => new Response("y".repeat(5000)));
    const response = await sendOutbound(receiver.url, request, { allowPrivate: true });
    expect(response.status).toBe(200);
    expect(response.body.length).toBe(1024);
    expect(response.truncated).toBe(true);
    receiver.stop();
  });
});
