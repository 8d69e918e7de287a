// Every setting an operator can give, as a flag or a PARLEY_* variable. Flags win over env.
export type OptionType = "string" | "integer" | "boolean" | "list";

export interface OptionSpec {
  key: keyof ConfigValues;
  flag: string;
  env: string;
  type: OptionType;
  default: string | number | boolean | string[];
  help: string;
}

export interface ConfigValues {
  host: string;
  port: number;
  dataDir: string;
  publicUrl: string;
  dashboardUrl: string;
  allowPrivateUrls: boolean;
  rateLimitPerMinute: number;
  publicRateLimitPerMinute: number;
  trustedProxies: string[];
  brandName: string;
  brandSlug: string;
  registration: string;
  logLevel: string;
  jobLeaseSeconds: number;
  auditRetentionDays: number;
  offline: boolean;
  builtinRecognition: string;
  scheduleGraceMinutes: number;
  currency: string;
  settlementSeconds: number;
  insufficientFundsMessage: string;
  demoAgent: string;
  demoVerifyAgent: string;
  domainVerification: string;
  dnsServers: string[];
  whiteLabelKeyPrefixes: boolean;
  stripeSecretKey: string;
  stripeWebhookSecret: string;
  stripeApiUrl: string;
  metricsListen: string;
  databaseUrl: string;
  metricsToken: string;
  nodeUrl: string;
  nodeName: string;
  filesDir: string;
}

export const OPTIONS: OptionSpec[] = [
  { key: "host", flag: "host", env: "PARLEY_HOST", type: "string", default: "0.0.0.0", help: "address to listen on" },
  { key: "port", flag: "port", env: "PARLEY_PORT", type: "integer", default: 8080, help: "port to listen on (0 picks a free one)" },
  { key: "dataDir", flag: "data-dir", env: "PARLEY_DATA_DIR", type: "string", default: "./parley-data", help: "where the database, secrets and recordings live" },
  { key: "publicUrl", flag: "public-url", env: "PARLEY_PUBLIC_URL", type: "string", default: "", help: "base URL used in links and event payloads (default http://localhost:<port>)" },
  { key: "dashboardUrl", flag: "dashboard-url", env: "PARLEY_DASHBOARD_URL", type: "string", default: "", help: "dashboard URL used in e-mails (default <public-url>)" },
  { key: "allowPrivateUrls", flag: "allow-private-urls", env: "PARLEY_ALLOW_PRIVATE_URLS", type: "boolean", default: false, help: "let webhooks and fetches reach http:// and private/loopback addresses" },
  { key: "rateLimitPerMinute", flag: "rate-limit-per-minute", env: "PARLEY_RATE_LIMIT_PER_MINUTE", type: "integer", default: 100, help: "requests per minute per user or API key" },
  { key: "publicRateLimitPerMinute", flag: "public-rate-limit-per-minute", env: "PARLEY_PUBLIC_RATE_LIMIT_PER_MINUTE", type: "integer", default: 30, help: "requests per minute per client IP on public endpoints" },
  { key: "trustedProxies", flag: "trusted-proxies", env: "PARLEY_TRUSTED_PROXIES", type: "list", default: [], help: "comma-separated proxy addresses/CIDRs whose X-Forwarded-For is believed" },
  { key: "brandName", flag: "brand-name", env: "PARLEY_BRAND_NAME", type: "string", default: "Parley", help: "product name shown to users and in the signature header" },
  { key: "brandSlug", flag: "brand-slug", env: "PARLEY_BRAND_SLUG", type: "string", default: "parley", help: "lowercase slug used in API key prefixes (sk_<slug>_live_)" },
  { key: "registration", flag: "registration", env: "PARLEY_REGISTRATION", type: "string", default: "open", help: "open: anyone may register; closed: only the CLI and invitations add users" },
  { key: "logLevel", flag: "log-level", env: "PARLEY_LOG_LEVEL", type: "string", default: "info", help: "debug, info, warn or error" },
  { key: "offline", flag: "offline", env: "PARLEY_OFFLINE", type: "boolean", default: false, help: "air-gapped: never fetch from the internet (knowledge-base URLs are refused)" },
  { key: "builtinRecognition", flag: "builtin-recognition", env: "PARLEY_BUILTIN_RECOGNITION", type: "string", default: "accurate", help: "accurate or fast: fast has the built-in recogniser search fewer paths per frame (about a third less CPU per talking caller, about 1 point more word errors), for a box with more talking callers than cores" },
  { key: "scheduleGraceMinutes", flag: "schedule-grace-minutes", env: "PARLEY_SCHEDULE_GRACE_MINUTES", type: "integer", default: 15, help: "a scheduled call missed while the server was down still runs if it is at most this late" },
  { key: "currency", flag: "currency", env: "PARLEY_CURRENCY", type: "string", default: "USD", help: "ISO 4217 code of the instance's money: wallets, prices and charges are in it" },
  { key: "demoAgent", flag: "demo-agent", env: "PARLEY_DEMO_AGENT", type: "string", default: "", help: "agent_… of the operator workspace that holds the public demo call (POST /v1/demo/call); unset: no demo" },
  { key: "demoVerifyAgent", flag: "demo-verify-agent", env: "PARLEY_DEMO_VERIFY_AGENT", type: "string", default: "", help: "agent_… of the operator workspace whose first message speaks {{demo_code}}: the demo then calls only numbers proven with it" },
  { key: "settlementSeconds", flag: "settlement-seconds", env: "PARLEY_SETTLEMENT_SECONDS", type: "integer", default: 10, help: "how often live calls are charged; a wallet can overdraw by at most this much talk time" },
  { key: "insufficientFundsMessage", flag: "insufficient-funds-message", env: "PARLEY_INSUFFICIENT_FUNDS_MESSAGE", type: "string", default: "I'm sorry, this call has to end now because the account is out of credit. Goodbye.", help: "what an agent says before it ends a call whose wallet ran out" },
  { key: "stripeSecretKey", flag: "stripe-secret-key", env: "PARLEY_STRIPE_SECRET_KEY", type: "string", default: "", help: "Stripe secret key (sk_…): top-ups by card through Stripe Checkout; unset: top-ups are offline (the operator credits)" },
  { key: "stripeWebhookSecret", flag: "stripe-webhook-secret", env: "PARLEY_STRIPE_WEBHOOK_SECRET", type: "string", default: "", help: "signing secret (whsec_…) of the Stripe webhook endpoint <public-url>/v1/payments/webhook/stripe" },
  { key: "stripeApiUrl", flag: "stripe-api-url", env: "PARLEY_STRIPE_API_URL", type: "string", default: "https://api.stripe.com", help: "where Stripe's API is (a proxy on egress-restricted hosts)" },
  { key: "domainVerification", flag: "domain-verification", env: "PARLEY_DOMAIN_VERIFICATION", type: "string", default: "dns", help: "dns: a custom domain is verified by its DNS TXT record; skip: at once (air-gapped instances)" },
  { key: "dnsServers", flag: "dns-servers", env: "PARLEY_DNS_SERVERS", type: "list", default: [], help: "comma-separated DNS servers (ip or ip:port) that verify custom domains (default: the system's)" },
  { key: "whiteLabelKeyPrefixes", flag: "white-label-key-prefixes", env: "PARLEY_WHITE_LABEL_KEY_PREFIXES", type: "boolean", default: false, help: "keys created on a reseller's verified domain carry the reseller's slug (sk_<slug>_live_)" },
  { key: "auditRetentionDays", flag: "audit-retention-days", env: "PARLEY_AUDIT_RETENTION_DAYS", type: "integer", default: 0, help: "delete audit rows older than this many days, hourly (0: keep them all)" },
  { key: "databaseUrl", flag: "database-url", env: "PARLEY_DATABASE_URL", type: "string", default: "", help: "postgres://user:password@host:5432/db?sslmode=… puts the data on PostgreSQL 15+ (README: Running on PostgreSQL); unset: SQLite in the data dir" },
  { key: "metricsListen", flag: "metrics-listen", env: "PARLEY_METRICS_LISTEN", type: "string", default: "", help: "HOST:PORT of a separate listener serving GET /metrics to Prometheus (e.g. 127.0.0.1:9464); unset: no metrics listener" },
  { key: "metricsToken", flag: "metrics-token", env: "PARLEY_METRICS_TOKEN", type: "string", default: "", help: "bearer token the metrics listener requires (Authorization: Bearer …); unset: none, so keep the listener on a private address" },
  { key: "nodeUrl", flag: "node-url", env: "PARLEY_NODE_URL", type: "string", default: "", help: "where the other nodes of a cluster (and carriers' media streams) reach this node directly, e.g. http://10.0.0.2:8080 (README: Running a cluster); unset: <public-url>, right for a single node" },
  { key: "nodeName", flag: "node-name", env: "PARLEY_NODE_NAME", type: "string", default: "", help: "this node's name in health and logs, and the key of its per-node SIP settings (default: the host name)" },
  { key: "filesDir", flag: "files-dir", env: "PARLEY_FILES_DIR", type: "string", default: "", help: "a directory every node shares (a network filesystem) for recordings; unset: the data dir on SQLite, the database in chunks on PostgreSQL" },
  { key: "jobLeaseSeconds", flag: "job-lease-seconds", env: "PARLEY_JOB_LEASE_SECONDS", type: "integer", default: 30, help: "how long a crashed worker's jobs wait before they run again" },
];
