/**
 * The Node side of DD_SECURITY_SCANNER=trivy|grype (docs/security-scanning.md "Trivy and Grype"):
 * the binary found at start-up, and each run of it as a child process without a shell, bounded in
 * time (killed at its deadline) and in output, its input SBOM in a private temporary directory.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, isAbsolute, join } from 'node:path';
import { ConfigError } from '../../../../shared/config/config-error';
import type { Environment } from '../../../../shared/config/env-source';
import type {
  ExternalScannerName,
  ScannerProcess,
  ScannerProcessRequest,
  ScannerProcessResult,
} from '../../security/scanners/vulnerability-scanner';

/** What the tool is told of the hub's error output: its start, enough to say why. */
const STDERR_KEPT_CHARACTERS = 300;

/**
 * The hub's variables a tool may need (its home for its cache, proxies for its database download,
 * its own TRIVY_* / GRYPE_* settings); the rest, the hub's DD_* secrets among them, stay with the hub.
 */
function childEnvironment(env: Environment, name: ExternalScannerName): Record<string, string> {
  const kept: Record<string, string> = {};
  const prefix = `${name.toUpperCase()}_`;
  const passed =
    /^(PATH|HOME|TMPDIR|TMP|TEMP|LANG|LC_ALL|TZ|SSL_CERT_FILE|SSL_CERT_DIR|XDG_CACHE_HOME|HTTPS?_PROXY|NO_PROXY|https?_proxy|no_proxy)$/;
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && (passed.test(key) || key.startsWith(prefix))) kept[key] = value;
  }
  return kept;
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The binary: DD_SECURITY_SCANNER_PATH when set, else the first `trivy` / `grype` on PATH. Not
 * found, start-up is refused naming the variable: a scanner chosen but absent would fail every scan.
 */
export function resolveScannerBinary(
  name: ExternalScannerName,
  explicit: string | undefined,
  env: Environment,
): string {
  if (explicit !== undefined) {
    if (!isAbsolute(explicit))
      throw new ConfigError('DD_SECURITY_SCANNER_PATH', `must be an absolute path (got "${explicit.slice(0, 200)}")`);
    if (!isExecutableFile(explicit))
      throw new ConfigError('DD_SECURITY_SCANNER_PATH', `${explicit} is not an executable file`);
    return explicit;
  }
  for (const directory of (env.PATH ?? '').split(delimiter)) {
    if (directory === '') continue;
    const candidate = join(directory, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  throw new ConfigError(
    'DD_SECURITY_SCANNER',
    `${name} was not found on PATH; install it, set DD_SECURITY_SCANNER_PATH to it, or use osv (docs/security-scanning.md)`,
  );
}

/** One line, short: stderr may hold paths and progress bars, and lands in the scan's error. */
function excerpt(stderr: string): string {
  const line = stderr.replace(/\s+/g, ' ').trim();
  return line.length > STDERR_KEPT_CHARACTERS ? `${line.slice(0, STDERR_KEPT_CHARACTERS)}...` : line;
}

function runOnce(binary: string, args: string[], env: Record<string, string>, request: ScannerProcessRequest) {
  return new Promise<ScannerProcessResult>((resolve, reject) => {
    const child = spawn(binary, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = '';
    let failure: Error | undefined;
    const stop = (error: Error) => {
      failure ??= error;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(
      () => stop(new Error(`did not finish within ${request.timeoutMs} ms (killed)`)),
      request.timeoutMs,
    );
    child.stdout.on('data', (chunk: Buffer) => {
      stdoutBytes += chunk.byteLength;
      if (stdoutBytes > request.maxStdoutBytes)
        stop(new Error(`wrote more than ${request.maxStdoutBytes} bytes (killed)`));
      else stdout.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      // Only the start is kept: a tool stuck printing progress must not fill the hub's memory.
      if (stderr.length < 4 * STDERR_KEPT_CHARACTERS) stderr += chunk.toString('utf8');
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`cannot run ${binary}: ${(error as NodeJS.ErrnoException).code ?? error.message}`));
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (failure) reject(failure);
      else if (code === null) reject(new Error(`was stopped by ${signal ?? 'a signal'}`));
      else resolve({ exitCode: code, stdout: Buffer.concat(stdout).toString('utf8'), stderr: excerpt(stderr) });
    });
  });
}

/** The runner of DD_SECURITY_SCANNER=trivy|grype, or undefined for the built-in scanner; throws ConfigError when the binary is absent. */
export function nodeScannerProcessFor(
  config: { scanner: string | undefined; scannerPath: string | undefined },
  env: Environment,
): ScannerProcess | undefined {
  if (config.scanner !== 'trivy' && config.scanner !== 'grype') return undefined;
  return createNodeScannerProcess(config.scanner, resolveScannerBinary(config.scanner, config.scannerPath, env), env);
}

export function createNodeScannerProcess(name: ExternalScannerName, binary: string, env: Environment): ScannerProcess {
  const inherited = childEnvironment(env, name);
  return {
    binary,
    async run(request) {
      const childEnv = { ...inherited, ...request.env };
      if (!request.input) return runOnce(binary, request.args, childEnv, request);
      // A directory of its own (0700 by mkdtemp): the SBOM names the image's packages, no one else reads it.
      const directory = await mkdtemp(join(tmpdir(), `dockwatch-${name}-`));
      try {
        const path = join(directory, request.input.fileName);
        await writeFile(path, request.input.content, { mode: 0o600 });
        const args = request.args.map((arg) => arg.replaceAll('{input}', path));
        return await runOnce(binary, args, childEnv, request);
      } finally {
        await rm(directory, { recursive: true, force: true });
      }
    },
  };
}
