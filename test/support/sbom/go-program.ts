/**
 * A tiny Go program with one module dependency, built offline (GOPROXY=off, GOFLAGS=-mod=mod): the
 * dependency is a local directory through a `replace`, so its build info lists
 * `dep example.com/greet v0.1.0` followed by `=> ../greet`. Needs Go ≥ 1.18 (Debian's golang-go).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const GO_MAIN_MODULE = 'example.com/hello';
export const GO_DEP = { path: 'example.com/greet', version: 'v0.1.0' };

export interface GoProgram {
  binary: Uint8Array;
  /** `go1.19.8`, from `go env GOVERSION`. */
  goVersion: string;
}

export function buildGoProgram(): GoProgram {
  const root = mkdtempSync(join(tmpdir(), 'sbom-go-'));
  try {
    mkdirSync(join(root, 'greet'));
    mkdirSync(join(root, 'hello'));
    writeFileSync(join(root, 'greet', 'go.mod'), 'module example.com/greet\n\ngo 1.18\n');
    writeFileSync(join(root, 'greet', 'greet.go'), 'package greet\n\nfunc Hello() string { return "hello" }\n');
    writeFileSync(
      join(root, 'hello', 'go.mod'),
      `module ${GO_MAIN_MODULE}\n\ngo 1.18\n\nrequire ${GO_DEP.path} ${GO_DEP.version}\n\nreplace ${GO_DEP.path} => ../greet\n`,
    );
    writeFileSync(
      join(root, 'hello', 'main.go'),
      'package main\n\nimport (\n\t"fmt"\n\n\t"example.com/greet"\n)\n\nfunc main() { fmt.Println(greet.Hello()) }\n',
    );
    const env = {
      ...process.env,
      GOPROXY: 'off',
      GOFLAGS: '-mod=mod',
      GOPATH: join(root, 'gopath'),
      GOCACHE: join(tmpdir(), 'sbom-go-cache'),
      CGO_ENABLED: '0',
      GOTOOLCHAIN: 'local',
    };
    execFileSync('go', ['build', '-o', join(root, 'hello-bin'), '.'], { cwd: join(root, 'hello'), env, stdio: 'pipe' });
    const goVersion = execFileSync('go', ['env', 'GOVERSION'], { env, encoding: 'utf8' }).trim();
    return { binary: new Uint8Array(readFileSync(join(root, 'hello-bin'))), goVersion };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
