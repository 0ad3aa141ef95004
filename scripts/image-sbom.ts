/**
 * The SBOM of an image by the hub's own generator (hub/src/security/sbom/), from its `docker save`
 * stream on standard input, as CycloneDX 1.6 (default) or SPDX 2.3 JSON on standard output. The
 * release dry run (scripts/release-dry-run.sh) runs it on both images:
 *
 *   docker save IMAGE | node --import tsx scripts/image-sbom.ts --image IMAGE --id sha256:… [--format spdx]
 *
 * Warnings the generator reports go to standard error; they do not fail the run.
 */
import { parseArgs } from 'node:util';
import { toCycloneDx } from '../hub/src/security/sbom/cyclonedx-document';
import { generateSbom } from '../hub/src/security/sbom/generate-sbom';
import { toSpdx } from '../hub/src/security/sbom/spdx-document';
import packageJson from '../package.json' with { type: 'json' };

const USAGE = 'usage: docker save IMAGE | image-sbom.ts --image IMAGE --id IMAGE_ID [--format cyclonedx|spdx]';

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      image: { type: 'string' },
      id: { type: 'string' },
      format: { type: 'string', default: 'cyclonedx' },
    },
  });
  const { image, id, format } = values;
  if (!image || !id || (format !== 'cyclonedx' && format !== 'spdx')) {
    console.error(USAGE);
    return 2;
  }
  if (process.stdin.isTTY) {
    console.error(`image-sbom: standard input is a terminal, not a docker save stream\n${USAGE}`);
    return 2;
  }
  const sbom = await generateSbom(process.stdin, { imageId: id, imageRef: image });
  for (const warning of sbom.warnings ?? []) console.error(`image-sbom: warning: ${warning}`);
  const render = format === 'spdx' ? toSpdx : toCycloneDx;
  process.stdout.write(`${JSON.stringify(render(sbom, { toolVersion: packageJson.version }), null, 2)}\n`);
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(`image-sbom: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);
