/**
 * The fixture `trivy` and `grype` executables (test/support/fixtures/scanners/): neither tool nor its
 * database can be had where the tests run, so these stand in for them, speaking their JSON. Each is
 * installed in a temporary directory of its own, to be put on PATH or named by DD_SECURITY_SCANNER_PATH.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

const FIXTURES = join(import.meta.dirname, 'fixtures', 'scanners');

export interface FakeScanner {
  /** The directory holding the executable, for PATH. */
  directory: string;
  /** The executable's absolute path. */
  binary: string;
  /** `directory` in front of this process's PATH. */
  path: string;
  remove(): void;
}

export function installFakeScanner(name: 'trivy' | 'grype'): FakeScanner {
  const directory = mkdtempSync(join(tmpdir(), `fake-${name}-`));
  const binary = join(directory, name);
  // A CommonJS file without an extension, run by this same node: no PATH lookup of node needed.
  writeFileSync(binary, `#!${process.execPath}\nrequire(${JSON.stringify(join(FIXTURES, `${name}.cjs`))});\n`);
  chmodSync(binary, 0o755);
  return {
    directory,
    binary,
    path: `${directory}${delimiter}${process.env.PATH ?? ''}`,
    remove: () => rmSync(directory, { recursive: true, force: true }),
  };
}
