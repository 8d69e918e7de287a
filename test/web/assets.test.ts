// The browser scripts the binary serves: small, free of eval-like code, valid JavaScript, stable ETags;
// the preview page escapes what it is given; the /assets/ routes cache and allow any origin.
import { describe, expect, test } from "bun:test";
import { WIDGET_LIMITS } from "../../src/modules/widgets/limits.ts";
import { assetRoutes, embedScript, previewPage, voiceClientScript, voiceWorkletScript } from "../../src/web/assets.ts";

const SCRIPTS = { "embed.js": embedScript, "voice-client.js": voiceClientScript, "voice-worklet.js": voiceWorkletScript };

describe("served scripts", () => {
  test("embed.js stays within 15 KB gzipped", () => {
    const { gzipBytes, body } = embedScript();
    console.log(`embed.js: ${body.length} bytes, ${gzipBytes} gzipped`);
    expect(gzipBytes).toBeLessThanOrEqual(15 * 1024);
  });

  for (const [name, asset] of Object.entries(SCRIPTS)) {
    test(`${name} has no eval, new Function or innerHTML assignment`, () => {
      const { body } = asset();
      expect(body).not.toMatch(/\beval\s*\(/);
      expect(body).not.toMatch(/new\s+Function\b/);
      expect(body).not.toMatch(/\.(inner|outer)HTML\s*=/);
      expect(body).not.toMatch(/insertAdjacentHTML|document\.write/);
    });

    test(`${name} is plain ASCII`, () => {
      // A host page without a charset would decode a UTF-8 script as windows-1252.
      expect(asset().body).toMatch(/^[\x00-\x7f]*$/);
    });

    test(`${name} parses as a classic script`, () => {
      // Parsing only: the Function is never called.
      expect(() => new Function(asset().body)).not.toThrow();
    });

    test(`${name} has a stable strong ETag`, () => {
      const { etag, body } = asset();
      expect(etag).toMatch(/^"sha256-[0-9a-f]{16}"$/);
      expect(asset().etag).toBe(etag);
      expect(new Bun.CryptoHasher("sha256").update(body).digest("hex").slice(0, 16)).toBe(etag.slice(8, 24));
    });
  }

  test("the chat input takes no more characters than the server accepts", () => {
    expect(embedScript().body).toContain(`maxlength: "${WIDGET_LIMITS.messageChars}"`);
  });

  test("the widget styles itself only through a constructable stylesheet", () => {
    const { body } = embedScript();
    expect(body).toContain("adoptedStyleSheets");
    expect(body).not.toMatch(/createElement\(\s*["']style["']|<style|setAttribute\(\s*["']style["']|\.style\.cssText|\bstyle:\s*["']/);
  });

  test("the worklet registers both processors", () => {
    const { body } = voiceWorkletScript();
    expect(body).toContain('registerProcessor("parley-capture"');
    expect(body).toContain('registerProcessor("parley-playback"');
  });
});

describe("previewPage", () => {
  test("escapes a hostile title, id and base URL", () => {
    const html = previewPage({
      widgetId: 'wgt_1"><script>alert(1)</script>',
      baseUrl: 'https://parley.example/"onload="x',
      title: '</title><script>alert("t")</script>&',
    });
    expect(html).toContain("<title>Preview: &lt;/title&gt;&lt;script&gt;alert(&quot;t&quot;)&lt;/script&gt;&amp;</title>");
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html).not.toContain('"onload=');
    expect(html).toContain('<script src="https://parley.example/&quot;onload=&quot;x/v1/widgets/wgt_1%22%3E%3Cscript%3Ealert(1)%3C%2Fscript%3E/embed.js" async></script>');
  });

  test("embeds the widget the way a customer's page does", () => {
    const html = previewPage({ widgetId: "wgt_abc", baseUrl: "https://parley.example/", title: "Support" });
    expect(html).toStartWith("<!doctype html>");
    expect(html).toContain('<script src="https://parley.example/v1/widgets/wgt_abc/embed.js" async></script>');
  });
});

describe("assetRoutes", () => {
  const app = assetRoutes();

  test("serve the voice client and worklet with caching and CORS headers", async () => {
    for (const [path, asset] of [["/assets/voice-client.js", voiceClientScript], ["/assets/voice-worklet.js", voiceWorkletScript]] as const) {
      const response = await app.handle(new Request(`http://parley.test${path}`));
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
      expect(response.headers.get("cache-control")).toBe("public, max-age=300");
      expect(response.headers.get("access-control-allow-origin")).toBe("*");
      expect(response.headers.get("etag")).toBe(asset().etag);
      expect(await response.text()).toBe(asset().body);
    }
  });

  test("answer 304 when If-None-Match holds the ETag", async () => {
    const { etag } = voiceClientScript();
    const cached = await app.handle(new Request("http://parley.test/assets/voice-client.js", { headers: { "if-none-match": `"other", ${etag}` } }));
    expect(cached.status).toBe(304);
    expect(cached.headers.get("etag")).toBe(etag);
    expect(await cached.text()).toBe("");
    const stale = await app.handle(new Request("http://parley.test/assets/voice-client.js", { headers: { "if-none-match": '"sha256-0000000000000000"' } }));
    expect(stale.status).toBe(200);
  });
});
