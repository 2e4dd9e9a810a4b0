import type { DoctorCheck, DoctorReport } from '../../core/schemas/doctor';
import { describeModelPlan } from '../../core/schemas/model-call';
import type { LocalSettings } from '../../core/settings/local-settings';

// 'embeddings', the longest kind, and a space.
const KIND_WIDTH = 11;
// Targets are padded into a column up to this width; a longer one pushes its own line's detail right.
const TARGET_WIDTH = 40;

function checkLines(check: DoctorCheck, targetWidth: number): string[] {
  const status = check.ok ? 'ok  ' : 'FAIL';
  const lines = [`${status} ${check.kind.padEnd(KIND_WIDTH)}${check.target.padEnd(targetWidth)}  ${check.detail} (${check.ms} ms)`];
  if (check.plan) {
    const variables = check.plan.variables.length > 0 ? ` (${check.plan.variables.join(', ')})` : '';
    lines.push(`     ${' '.repeat(KIND_WIDTH)}plan${variables}: ${describeModelPlan(check.plan)}`);
  }
  return lines;
}

const NAME_WIDTH = 'EMBEDDING_BASE_URL'.length + 2;

/** The settings used, one a line, with where each came from (issue 33 §1): environment, settings file or default. */
function settingsLines(settings: LocalSettings): string[] {
  const order = settings.found ? `environment > ${settings.file} > default` : `environment > default; no ${settings.file}`;
  const valueWidth = Math.max(...settings.used.map((use) => use.value.length));
  return [
    `settings (${order})`,
    ...settings.used.map((use) => `  ${use.name.padEnd(NAME_WIDTH)}${use.value.padEnd(valueWidth)}  ${use.source}${use.from === null ? '' : ` (${use.from})`}`),
    '',
  ];
}

/**
 * `ragtime doctor`: the settings it used and where each came from, then one line per check (ok or FAIL, what, where, what it found or the problem and its fix, how
 * long), each model's plan under it (the output mode and temperature its calls will use, and why), and a last
 * line that sums up.
 */
export function renderDoctor(report: DoctorReport): string {
  const targetWidth = Math.min(TARGET_WIDTH, Math.max(0, ...report.checks.map((check) => check.target.length)));
  const failed = report.checks.filter((check) => !check.ok);
  const summary =
    failed.length === 0
      ? `all ${report.checks.length} checks passed`
      : `${failed.length} of ${report.checks.length} checks failed (${[...new Set(failed.map((check) => check.kind))].join(', ')}): see the FAIL lines above`;
  const settings = report.settings ? settingsLines(report.settings) : [];
  return [...settings, ...report.checks.flatMap((check) => checkLines(check, targetWidth)), summary].join('\n');
}
