// biome-ignore-all lint/suspicious/noTemplateCurlyInString: Dockerfile and compose variables, written as the files have them
import { describe, expect, it } from 'vitest';
import { parseDockerfile } from './dockerfile-references';

describe('parseDockerfile', () => {
  it('gives every FROM of a multi-stage build with its line, skipping scratch and earlier stages', () => {
    const text = [
      '# syntax=docker/dockerfile:1',
      'ARG NODE_VERSION=20.11.1',
      'ARG BASE=node:${NODE_VERSION}-bookworm-slim',
      '',
      'FROM --platform=$BUILDPLATFORM ${BASE} AS build',
      'RUN npm ci',
      'FROM golang:1.22 as tools',
      'FROM build AS test',
      'FROM scratch',
      'COPY --from=build /app /app',
      'FROM registry.example.com:5000/team/runtime:2.3.4@sha256:' + 'a'.repeat(64),
    ].join('\n');
    const parsed = parseDockerfile(text, 'api/Dockerfile');
    expect(parsed.problems).toEqual([]);
    expect(parsed.entries.map(({ reference, line, name }) => ({ reference, line, name }))).toEqual([
      { reference: 'node:20.11.1-bookworm-slim', line: 5, name: 'api/Dockerfile (build)' },
      { reference: 'golang:1.22', line: 7, name: 'api/Dockerfile (tools)' },
      {
        reference: `registry.example.com:5000/team/runtime:2.3.4@sha256:${'a'.repeat(64)}`,
        line: 11,
        name: 'api/Dockerfile',
      },
    ]);
  });

  it('joins continuation lines, honours the escape directive, skips heredoc bodies and takes ${VAR:-default}', () => {
    const text = [
      '# escape=`',
      'FROM `',
      '  alpine:${ALPINE:-3.19}',
      'RUN <<EOF',
      'FROM not-an-instruction:1',
      'EOF',
      'FROM   busybox:1.36   AS   final',
    ].join('\n');
    const parsed = parseDockerfile(text, 'Dockerfile');
    expect(parsed.entries.map(({ reference, line }) => [reference, line])).toEqual([
      ['alpine:3.19', 2],
      ['busybox:1.36', 7],
    ]);
  });

  it('reports a FROM whose build argument has no default, and a malformed reference, at their lines; the rest stays', () => {
    const text = ['ARG TAG', 'FROM nginx:${TAG}', 'FROM Not_A/Valid::ref', 'FROM redis:7.2', 'FROM'].join('\n');
    const parsed = parseDockerfile(text, 'broken/Dockerfile');
    expect(parsed.entries.map((entry) => entry.reference)).toEqual(['redis:7.2']);
    expect(parsed.problems.map(({ file, line }) => ({ file, line }))).toEqual([
      { file: 'broken/Dockerfile', line: 2 },
      { file: 'broken/Dockerfile', line: 3 },
      { file: 'broken/Dockerfile', line: 5 },
    ]);
    expect(parsed.problems[0]?.message).toMatch(/no default/);
    expect(parsed.problems[1]?.message).toMatch(/invalid image reference/);
  });
});
