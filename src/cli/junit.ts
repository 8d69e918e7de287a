import type { TestResult, TestRunWithResults } from "../sdk/ts/src/index.ts";
import { checkLine, transcriptText } from "./test-report.ts";

/** Text and attribute values: the five entities, and no character XML 1.0 forbids (control characters). */
function xml(value: string): string {
  return value
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

const seconds = (ms: number | null | undefined) => ((ms ?? 0) / 1000).toFixed(3);

function testcase(result: TestResult, classname: string): string {
  const open = `    <testcase name="${xml(result.name)}" classname="${xml(classname)}" time="${seconds(result.duration_ms)}">`;
  const body: string[] = [];
  if (result.status === "failed") {
    const first = result.failures[0];
    const type = first ? String(first.expectation.type ?? "expectation") : "expectation";
    const message = first?.detail ?? "the case failed";
    body.push(`      <failure message="${xml(message)}" type="${xml(type)}">${xml(result.failures.map(checkLine).join("\n"))}</failure>`);
  } else if (result.status === "error") {
    body.push(`      <error message="${xml(result.error ?? "the case could not be judged")}" type="error">${xml(result.error ?? "")}</error>`);
  } else if (result.status !== "passed") {
    body.push(`      <skipped message="${xml(result.status === "canceled" ? "the run was canceled" : `left ${result.status}`)}"/>`);
  }
  const out = [result.call_id ? `call ${result.call_id}` : null, transcriptText(result.transcript)].filter(Boolean).join("\n");
  if (out) body.push(`      <system-out>${xml(out)}</system-out>`);
  return body.length ? `${open}\n${body.join("\n")}\n    </testcase>` : open.replace(/>$/, "/>");
}

/**
 * The run as JUnit XML, the report format CI systems read (Jenkins, GitLab, GitHub reporters): one
 * testsuite for the run, one testcase per case, classed under the agent.
 */
export function junitXml(run: TestRunWithResults, agent: { id: string; name: string }): string {
  const results = run.results;
  const count = (status: string) => results.filter((r) => r.status === status).length;
  const failures = count("failed");
  const errors = count("error");
  const skipped = results.length - failures - errors - count("passed");
  const totals = `tests="${results.length}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${seconds(run.duration_ms)}"`;
  const name = xml(`${agent.name} (${agent.id}) version ${run.agent_version}`);
  const timestamp = new Date(run.started_at ?? run.created_at).toISOString().replace(/\.\d+Z$/, "");
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="parley test" ${totals}>`,
    `  <testsuite name="${name}" id="${xml(run.id)}" ${totals} timestamp="${timestamp}">`,
    `    <properties>`,
    `      <property name="run_id" value="${xml(run.id)}"/>`,
    `      <property name="agent_id" value="${xml(agent.id)}"/>`,
    `      <property name="agent_version" value="${run.agent_version}"/>`,
    `    </properties>`,
    ...results.map((result) => testcase(result, agent.id)),
    `  </testsuite>`,
    `</testsuites>`,
    ``,
  ].join("\n");
}
