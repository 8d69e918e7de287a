// The widget runtime, loaded on a customer's page with
//   <script src="https://PARLEY/v1/widgets/wgt_ID/embed.js" async></script>
// It renders a launcher and a chat/voice panel inside a Shadow DOM, so the page's CSS cannot reach it,
// and works under a strict CSP: styles through a constructable stylesheet, DOM built by hand, text set
// with textContent, no inline handlers, no eval. Hand-written and small (the budget is 15 KB gzipped).
(function () {
  "use strict";
  var EMBED = /^(.*)\/v1\/widgets\/([^/?#]+)\/embed\.js(?:[?#].*)?$/;
  var SVG = "http://www.w3.org/2000/svg";
  var ICONS = {
    chat: "M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z",
    voice: "M12 2a3 3 0 0 1 3 3v6a3 3 0 0 1-6 0V5a3 3 0 0 1 3-3zm7 9a7 7 0 0 1-6 6.9V21h-2v-3.1A7 7 0 0 1 5 11h2a5 5 0 0 0 10 0z",
    close: "M6.4 5 12 10.6 17.6 5 19 6.4 13.4 12 19 17.6 17.6 19 12 13.4 6.4 19 5 17.6 10.6 12 5 6.4z",
  };
  var STYLES =
    ":host{all:initial}" +
    "*{box-sizing:border-box}" +
    ".w{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;color:var(--fg)}" +
    ".l,.p{position:fixed;right:20px;z-index:2147483000}" +
    ".left .l,.left .p{right:auto;left:20px}" +
    ".l{bottom:20px;width:56px;height:56px;border:0;border-radius:50%;padding:0;background:var(--p);color:var(--on);" +
    "cursor:pointer;display:flex;align-items:center;justify-content:center;box-shadow:0 4px 14px rgba(0,0,0,.25)}" +
    ".l svg{width:26px;height:26px;fill:currentColor}" +
    ".p{bottom:88px;width:min(370px,calc(100vw - 40px));height:min(560px,calc(100vh - 120px));display:flex;" +
    "flex-direction:column;background:var(--bg);color:var(--fg);border-radius:14px;overflow:hidden;" +
    "box-shadow:0 10px 40px rgba(0,0,0,.28)}" +
    ".p[hidden]{display:none}" +
    ".h{display:flex;align-items:center;gap:10px;padding:12px 12px 12px 16px;background:var(--p);color:var(--on)}" +
    ".h img{width:32px;height:32px;border-radius:50%;object-fit:cover;flex:none}" +
    ".t{flex:1;margin:0;font-size:15px;font-weight:600;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}" +
    ".x{border:0;background:none;color:inherit;padding:4px;border-radius:6px;cursor:pointer;display:flex}" +
    ".x svg{width:22px;height:22px;fill:currentColor}" +
    ".g{flex:1;overflow-y:auto;padding:14px;display:flex;flex-direction:column;gap:8px}" +
    ".m{max-width:85%;padding:8px 12px;border-radius:12px;white-space:pre-wrap;overflow-wrap:anywhere}" +
    ".a{align-self:flex-start;background:var(--mb)}" +
    ".u{align-self:flex-end;background:var(--p);color:var(--on)}" +
    ".n{align-self:center;max-width:100%;font-size:12px;opacity:.75;text-align:center}" +
    ".e{align-self:center;max-width:100%;font-size:13px;color:#b91c1c;text-align:center}" +
    ".k{letter-spacing:2px}" +
    ".v{padding:10px 14px 0}" +
    ".c{width:100%;padding:9px;border:1px solid var(--p);border-radius:8px;background:none;color:var(--fg);font:inherit;font-weight:600;cursor:pointer}" +
    ".c[data-live]{background:#b91c1c;border-color:#b91c1c;color:#fff}" +
    ".f{display:flex;gap:8px;padding:10px 14px 14px}" +
    ".i{flex:1;min-width:0;padding:9px 12px;border:1px solid var(--ln);border-radius:8px;background:var(--bg);color:var(--fg);font:inherit}" +
    ".s{padding:9px 14px;border:0;border-radius:8px;background:var(--p);color:var(--on);font:inherit;font-weight:600;cursor:pointer}" +
    "[aria-disabled=true]{opacity:.6;cursor:default}" +
    "button:focus-visible,.i:focus-visible{outline:2px solid var(--fg);outline-offset:2px}" +
    ".h button:focus-visible{outline-color:var(--on)}" +
    "@media (prefers-reduced-motion:no-preference){.p{animation:pw .16s ease-out}}" +
    "@keyframes pw{from{opacity:0;transform:translateY(8px)}}";

  var self = ownScript();
  if (!self) return console.warn("Parley widget: cannot find my <script src=.../v1/widgets/<id>/embed.js>");
  var base = self[1];
  var id = decodeURIComponent(self[2]);
  if (document.getElementById("parley-widget-" + id)) return;
  var api = base + "/v1/widgets/" + encodeURIComponent(id);
  var sessionKey = "parley:" + id + ":session";

  /** [src, base, id] of this script: currentScript, or (async, so null) the first not yet started. */
  function ownScript() {
    var current = document.currentScript;
    var match = current && EMBED.exec(current.src);
    if (match) return match;
    var scripts = document.getElementsByTagName("script");
    for (var i = 0; i < scripts.length; i++) {
      match = EMBED.exec(scripts[i].src);
      if (match && !document.getElementById("parley-widget-" + decodeURIComponent(match[2]))) return match;
    }
    return null;
  }

  fetch(api + "/config", { credentials: "omit" })
    .then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (body) {
        if (!response.ok) throw new Error(body.detail || "HTTP " + response.status);
        return body;
      });
    })
    .then(function (config) {
      if (document.body) render(config);
      else document.addEventListener("DOMContentLoaded", function () { render(config); });
    })
    .catch(function (error) {
      // A refused origin gets no CORS headers, so the browser hides the 403 and fetch just fails.
      var why = error instanceof TypeError ? "refused: this page's origin (" + location.origin + ") is not one the widget allows, or Parley cannot be reached" : error.message;
      console.warn("Parley widget " + id + ": " + why);
    });

  /** An element with attributes (a class under "class") and children (nodes or text). */
  function el(tag, attributes, children) {
    var node = document.createElement(tag);
    for (var name in attributes) if (attributes[name] != null) node.setAttribute(name, attributes[name]);
    (children || []).forEach(function (child) {
      node.append(child);
    });
    return node;
  }

  function icon(name) {
    var svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("viewBox", "0 0 24 24");
    svg.setAttribute("aria-hidden", "true");
    svg.setAttribute("focusable", "false");
    var path = document.createElementNS(SVG, "path");
    path.setAttribute("d", ICONS[name]);
    svg.append(path);
    return svg;
  }

  /** A colour from the config, or the fallback when it is not one the browser understands. */
  function colour(value, fallback) {
    return typeof value === "string" && window.CSS && CSS.supports("color", value) ? value : fallback;
  }

  /** White or near-black, whichever reads better on a #rgb/#rrggbb background (white otherwise). */
  function onColour(value) {
    var hex = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(value);
    if (!hex) return "#fff";
    var h = hex[1].length === 3 ? hex[1].replace(/./g, "$&$&") : hex[1];
    var channels = [0, 2, 4].map(function (i) {
      var c = parseInt(h.slice(i, i + 2), 16) / 255;
      return c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
    });
    var luminance = 0.2126 * channels[0] + 0.7152 * channels[1] + 0.0722 * channels[2];
    // Contrast against white vs against #111: pick the larger.
    return 1.05 / (luminance + 0.05) >= (luminance + 0.05) / 0.0565 ? "#fff" : "#111";
  }

  function render(config) {
    var look = config.look || {};
    var mode = config.mode === "voice" || config.mode === "both" ? config.mode : "chat";
    var chat = mode !== "voice";
    var voice = mode !== "chat";
    var title = String(look.title || config.agent_name || "Chat");
    var primary = colour(look.primary_color, "#2563eb");
    var background = colour(look.background_color, "#ffffff");
    var text = colour(look.text_color, "#111827");

    var host = el("parley-widget", { id: "parley-widget-" + id, "data-state": "closed" });
    var shadow = host.attachShadow({ mode: "open" });
    var sheet = new CSSStyleSheet();
    sheet.replaceSync(STYLES);
    shadow.adoptedStyleSheets = [sheet];

    var launcher = el("button", {
      type: "button",
      class: "l",
      "aria-label": (chat ? "Open chat with " : "Open voice assistant ") + title,
      "aria-expanded": "false",
      "aria-controls": "parley-panel",
    }, [icon(chat ? "chat" : "voice")]);
    var close = el("button", { type: "button", class: "x", "aria-label": "Close" }, [icon("close")]);
    var avatar = /^https?:\/\//i.test(look.avatar_url || "") ? el("img", { src: look.avatar_url, alt: "" }) : null;
    var log = el("div", { class: "g", role: "log", "aria-live": "polite", "aria-label": "Conversation" });
    var panel = el("div", { id: "parley-panel", class: "p", role: "dialog", "aria-label": title, "aria-modal": "false", hidden: "" }, [
      el("div", { class: "h" }, [avatar || "", el("h2", { class: "t" }, [title]), close]),
      log,
    ]);
    var root = el("div", { class: look.position === "bottom-left" ? "w left" : "w" }, [launcher, panel]);
    // Colours as custom properties set from script: allowed under a CSP without 'unsafe-inline'.
    root.style.setProperty("--p", primary);
    root.style.setProperty("--on", onColour(primary));
    root.style.setProperty("--bg", background);
    root.style.setProperty("--fg", text);
    root.style.setProperty("--mb", "color-mix(in srgb, " + text + " 8%, " + background + ")");
    root.style.setProperty("--ln", "color-mix(in srgb, " + text + " 25%, " + background + ")");
    shadow.append(root);

    function add(kind, message) {
      var line = el("div", { class: "m " + kind }, [String(message)]);
      log.append(line);
      log.scrollTop = log.scrollHeight;
      return line;
    }

    if (look.greeting) add("a", look.greeting);

    var callButton = voice ? el("button", { type: "button", class: "c", "aria-label": "Start voice call" }, ["Start voice call"]) : null;
    if (voice) panel.append(el("div", { class: "v" }, [callButton]));
    // maxlength: the server's limit per message (WIDGET_LIMITS.messageChars; test/web checks they agree).
    var input = chat ? el("input", { class: "i", type: "text", "aria-label": "Message", placeholder: "Type a message\u2026", autocomplete: "off", maxlength: "2000" }) : null;
    var send = chat ? el("button", { type: "submit", class: "s" }, ["Send"]) : null;
    var form = chat ? el("form", { class: "f" }, [input, send]) : null;
    if (chat) panel.append(form);

    function open() {
      panel.hidden = false;
      launcher.setAttribute("aria-expanded", "true");
      host.setAttribute("data-state", "open");
      log.scrollTop = log.scrollHeight;
      (input || callButton).focus();
    }
    function hide(returnFocus) {
      panel.hidden = true;
      launcher.setAttribute("aria-expanded", "false");
      host.setAttribute("data-state", "closed");
      if (returnFocus) launcher.focus();
    }

    launcher.addEventListener("click", function () {
      if (panel.hidden) open();
      else hide(false);
    });
    close.addEventListener("click", function () {
      hide(true);
    });
    root.addEventListener("keydown", function (event) {
      if (event.key === "Escape" && !panel.hidden) {
        event.stopPropagation();
        hide(true);
      }
    });

    function post(path, body) {
      return fetch(api + path, {
        method: "POST",
        credentials: "omit",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      }).then(function (response) {
        return response.json().catch(function () { return {}; }).then(function (json) {
          if (!response.ok) throw new Error(json.detail || json.title || "Something went wrong (HTTP " + response.status + ").");
          return json;
        });
      }, function () {
        throw new Error("Could not reach the assistant. Check your connection and try again.");
      });
    }

    if (chat) {
      var busy = false;
      form.addEventListener("submit", function (event) {
        event.preventDefault();
        var message = input.value.trim();
        if (!message || busy) return;
        busy = true;
        send.setAttribute("aria-disabled", "true");
        input.value = "";
        add("u", message);
        var typing = add("a k", "\u2026");
        typing.setAttribute("aria-hidden", "true");
        var body = { message: message };
        var sessionId = storage("get");
        if (sessionId) body.session_id = sessionId;
        post("/chat", body)
          .then(function (reply) {
            if (reply.session_id) storage("set", reply.session_id);
            typing.remove();
            add("a", reply.reply || "");
          }, function (error) {
            typing.remove();
            add("e", error.message);
          })
          .then(function () {
            busy = false;
            send.removeAttribute("aria-disabled");
            if (!panel.hidden) input.focus();
          });
      });
    }

    if (voice) {
      var call = null;
      var starting = false;
      var setCall = function (live) {
        var label = live ? "End call" : "Start voice call";
        callButton.textContent = label;
        callButton.setAttribute("aria-label", label);
        callButton.toggleAttribute("data-live", live);
        callButton.removeAttribute("aria-disabled");
      };
      callButton.addEventListener("click", function () {
        if (call) return call.hangup();
        if (starting) return;
        starting = true;
        // aria-disabled, not `disabled`, which would drop keyboard focus from the button (as for Send).
        callButton.setAttribute("aria-disabled", "true");
        var status = add("n", "Connecting\u2026");
        post("/voice-token", {})
          .then(function (token) {
            return loadVoiceClient().then(function () {
              return window.ParleyVoice.connect({
                url: token.url,
                workletUrl: base + "/assets/voice-worklet.js",
                onTranscript: function (role, words) {
                  add(role === "caller" ? "u" : "a", words);
                },
                onEnded: function () {
                  call = null;
                  setCall(false);
                  add("n", "Call ended");
                },
              });
            });
          })
          .then(function (session) {
            call = session;
            widget.voice = session;
            status.textContent = "Call started";
            setCall(true);
          }, function (error) {
            status.remove();
            add("e", error && error.name === "NotAllowedError" ? "Microphone access is needed for a voice call." : (error && error.message) || "The call could not start.");
            setCall(false);
          })
          .then(function () {
            starting = false;
          });
      });
    }

    document.body.append(host);
    // `voice`: the call in progress (its state and counters), for the host page and tests.
    var widget = { open: open, close: function () { hide(false); }, id: id, voice: null };
    window.ParleyWidget = widget;
  }

  /** The chat session id for this tab (storage may be blocked: then each message starts afresh). */
  function storage(action, value) {
    try {
      if (action === "set") sessionStorage.setItem(sessionKey, value);
      else return sessionStorage.getItem(sessionKey);
    } catch (error) {
      return null;
    }
  }

  var voiceClient = null;
  function loadVoiceClient() {
    if (window.ParleyVoice) return Promise.resolve();
    voiceClient = voiceClient || new Promise(function (resolve, reject) {
      var script = el("script", { src: base + "/assets/voice-client.js", async: "" });
      script.addEventListener("load", function () { resolve(); });
      script.addEventListener("error", function () {
        voiceClient = null;
        script.remove();
        reject(new Error("Could not load the voice client."));
      });
      document.head.append(script);
    });
    return voiceClient;
  }
})();
