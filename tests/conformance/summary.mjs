// Reads the results folder of one `conformance server|client --requirements
// REVISION -o DIR` run (one folder per scenario, each with a checks.json:
// server-<scenario>-<timestamp>/ for the server leg, <scenario>-<timestamp>/
// for the client leg, auth/ scenarios one folder deeper) and prints one line
// per scenario, then a machine-readable last line:
//
//   RESULT scored_passed=N scored_failed=M checks_passed=P checks_failed=F
//          unscored_passed=n unscored_failed=m vacuous=V unexpected=U stale=S
//
// (on one line). Usage:
//
//   node summary.mjs RESULTS_DIR LEG REQUIREMENTS_YAML EXPECTED_FAILURES_YAML
//
// LEG is `server` or `client`; REQUIREMENTS_YAML the suite's frozen
// requirement set of the revision run (node_modules/@modelcontextprotocol/
// conformance/requirements/<revision>.yaml): its `server:` / `client:` list
// is what is scored, its `not_scored:` entries (extension, pending,
// added-after-release) are run and reported but never scored.
//
// A scenario passes when none of its checks is FAILURE or WARNING (the
// suite's --expected-failures treats a WARNING as a failure too). Checks are
// counted as the suite counts them (SUCCESS / FAILURE; WARNING and INFO not
// counted); the counts are those of the scored scenarios.
//
// The expected-failures file is applied to every scenario run, scored or
// not, with the suite's semantics: an entry `scenario` expects the scenario
// to fail, an entry `scenario:check-id` expects that check to fail; a
// failure that is not listed is `unexpected`, a listed one that passes is
// `stale`. (The suite itself only applies the file to the scored scenarios
// of a --requirements run; this covers the rest.)
//
// Vacuous passes (server leg): tools-call-simple-text only checks that some
// text came back, and tools-call-error only that the result has isError:
// true, so a server that answers an unknown tool with an isError result
// passes both without serving the fixture tools. Those passes are checked
// here against the fixture (the text of test_simple_text, the tool
// test_error_handling in tools/list) and counted as failures when they do not
// match; so is any other passing tools-call-* result that has isError: true.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import YAML from 'yaml';

const [dir, leg, requirementsFile, expectedFile] = process.argv.slice(2);
if (!dir || !existsSync(dir) || !['server', 'client'].includes(leg) || !requirementsFile || !expectedFile) {
  console.error('usage: node summary.mjs RESULTS_DIR server|client REQUIREMENTS_YAML EXPECTED_FAILURES_YAML');
  process.exit(2);
}

const requirements = YAML.parse(readFileSync(requirementsFile, 'utf8')) ?? {};
const scored = new Set(requirements[leg] ?? []);
const notScored = new Map(
  (requirements.not_scored ?? []).filter((e) => e.leg === leg).map((e) => [e.scenario, e.reason]),
);
const expected = (YAML.parse(readFileSync(expectedFile, 'utf8')) ?? {})[leg] ?? [];
const expectedScenarios = new Set(expected.filter((e) => !e.includes(':')));
const expectedChecks = new Map();
for (const entry of expected) {
  if (expectedScenarios.has(entry)) continue;
  const at = entry.lastIndexOf(':');
  const scenario = entry.slice(0, at);
  if (!expectedChecks.has(scenario)) expectedChecks.set(scenario, new Set());
  expectedChecks.get(scenario).add(entry.slice(at + 1));
}

const STAMP = /-\d{4}-\d\d-\d\dT[\d-]+Z$/;
// Every folder below `root` holding a checks.json.
function folders(root) {
  const found = [];
  for (const name of readdirSync(root)) {
    const path = join(root, name);
    if (!statSync(path).isDirectory()) continue;
    if (existsSync(join(path, 'checks.json'))) found.push(path);
    else found.push(...folders(path));
  }
  return found;
}
const runs = [];
for (const path of folders(dir)) {
  const name = relative(dir, path);
  const stamp = name.match(STAMP)?.[0];
  if (!stamp) continue;
  let scenario = name.slice(0, -stamp.length);
  if (leg === 'server') scenario = scenario.replace(/^server-/, '');
  let checks;
  try {
    checks = JSON.parse(readFileSync(join(path, 'checks.json'), 'utf8'));
  } catch (e) {
    checks = [{ id: 'checks.json', status: 'FAILURE', errorMessage: `unreadable: ${e}` }];
  }
  runs.push({ scenario, stamp, checks });
}
if (runs.length === 0) {
  console.error(`summary.mjs: no checks.json under ${dir}`);
  process.exit(2);
}
// In the order the suite ran them; scored scenarios first.
runs.sort((a, b) => (scored.has(b.scenario) - scored.has(a.scenario)) || a.stamp.localeCompare(b.stamp));

const listed = runs
  .find((r) => r.scenario === 'tools-list')
  ?.checks.find((c) => c.id === 'tools-list')?.details?.tools;
const tools = Array.isArray(listed) ? new Set(listed.map((t) => (typeof t === 'string' ? t : t?.name))) : null;

const SIMPLE_TEXT = 'This is a simple text response for testing.';
const ERROR_TOOL = 'test_error_handling';
const firstText = (result) => result?.content?.find?.((x) => x.type === 'text')?.text ?? '';
const oneLine = (s, n = 200) => {
  const t = String(s).replace(/\s+/g, ' ').trim();
  return t.length > n ? `${t.slice(0, n - 1)}…` : t;
};

// Why a SUCCESS check is vacuous, or null when it is not.
function vacuous(scenario, check) {
  if (leg !== 'server' || check.status !== 'SUCCESS' || !scenario.startsWith('tools-call-')) return null;
  if (check.id === 'wire-schema-valid') return null;
  const result = check.details?.result;
  const text = firstText(result);
  if (scenario === 'tools-call-simple-text') {
    return text.includes(SIMPLE_TEXT)
      ? null
      : `vacuous pass: expected the fixture text "${SIMPLE_TEXT}", got "${oneLine(text, 80)}"`;
  }
  if (scenario === 'tools-call-error') {
    if (tools ? !tools.has(ERROR_TOOL) : /not found|unknown tool/i.test(text)) {
      return `vacuous pass: ${ERROR_TOOL} is not served; the isError text is "${oneLine(text, 80)}"`;
    }
    return null;
  }
  return result?.isError === true ? `vacuous pass: the result is isError: true ("${oneLine(text, 80)}")` : null;
}

const count = {
  scored_passed: 0,
  scored_failed: 0,
  checks_passed: 0,
  checks_failed: 0,
  unscored_passed: 0,
  unscored_failed: 0,
  vacuous: 0,
  unexpected: 0,
  stale: 0,
};
const verdicts = [];
for (const { scenario, checks } of runs) {
  const isScored = scored.has(scenario);
  const problems = [];
  const failing = new Set();
  const label = (c) => (c.id === scenario ? '' : `${c.id}: `);
  let checksPassed = 0;
  let checksFailed = 0;
  for (const c of checks) {
    const why = vacuous(scenario, c);
    if (why) {
      count.vacuous++;
      checksFailed++;
      failing.add(c.id);
      problems.push(`${label(c)}${why}`);
      continue;
    }
    if (c.status === 'SUCCESS') checksPassed++;
    if (c.status === 'FAILURE') {
      checksFailed++;
      failing.add(c.id);
      problems.push(`${label(c)}${oneLine(c.errorMessage ?? 'failed')}`);
    }
    if (c.status === 'WARNING') {
      failing.add(c.id);
      problems.push(`(WARNING) ${label(c)}${oneLine(c.errorMessage ?? c.description ?? '')}`);
    }
  }
  const passed = problems.length === 0;
  if (isScored) {
    count[passed ? 'scored_passed' : 'scored_failed']++;
    count.checks_passed += checksPassed;
    count.checks_failed += checksFailed;
  } else {
    count[passed ? 'unscored_passed' : 'unscored_failed']++;
  }
  // The expected-failures verdict.
  const onlyWarnings = !passed && problems.every((p) => p.startsWith('(WARNING)'));
  let verdict = passed ? 'PASS' : onlyWarnings ? 'WARN' : 'FAIL';
  if (expectedScenarios.has(scenario)) {
    if (passed) {
      count.stale++;
      verdicts.push(`stale entry (now passes, remove it): ${scenario}`);
    } else verdict = 'XFAIL';
  } else if (expectedChecks.has(scenario)) {
    const listedChecks = expectedChecks.get(scenario);
    for (const id of failing) {
      if (!listedChecks.has(id)) {
        count.unexpected++;
        verdicts.push(`unexpected failure: ${scenario}:${id}`);
      }
    }
    for (const id of listedChecks) {
      if (checks.find((c) => c.id === id)?.status === 'SUCCESS' && !failing.has(id)) {
        count.stale++;
        verdicts.push(`stale entry (now passes, remove it): ${scenario}:${id}`);
      }
    }
    if (!passed && [...failing].every((id) => listedChecks.has(id))) verdict = 'XFAIL';
  } else if (!passed) {
    count.unexpected++;
    verdicts.push(`unexpected failure: ${scenario}`);
  }
  const tag = isScored ? '' : ` [not scored: ${notScored.get(scenario) ?? 'not in the requirement set'}]`;
  const detail = passed ? '' : `: ${problems.join('; ')}`;
  console.log(`  ${verdict.padEnd(5)} ${scenario}${tag} (${checksPassed}/${checksPassed + checksFailed} checks)${detail}`);
}
for (const v of verdicts) console.log(`  ${v}`);
console.log(
  `RESULT ${Object.entries(count)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ')}`,
);
