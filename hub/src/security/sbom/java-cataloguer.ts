/**
 * Java archives: the `META-INF/maven/<group>/<artifact>/pom.properties` Maven writes into every jar
 * it builds, read from `.jar`, `.war` and `.ear` files (and from the jars one level inside them:
 * Spring Boot's `BOOT-INF/lib/`, a war's `WEB-INF/lib/`). A zip must be whole to be read (its
 * directory is at the end), so archives are buffered, up to a cap; a shaded jar's manifest-only
 * dependencies and jars without pom.properties are not catalogued.
 */
import { unzipSync } from 'fflate';
import { errorMessage } from '../../../../shared/error-message';
import type { SbomPackage } from '../sbom-model';
import { type Cataloguer, MiB, readCapped, skippedWarning } from './cataloguer';
import { formatPurl } from './purl';

const ARCHIVE = /\.(jar|war|ear)$/i;
const POM_PROPERTIES = /^META-INF\/maven\/[^/]+\/[^/]+\/pom\.properties$/;
const NESTED_JAR = /^(BOOT-INF|WEB-INF)\/lib\/[^/]+\.jar$/;
const ARCHIVE_CAP = 64 * MiB;
const NESTED_CAP = 16 * MiB;

export interface MavenArtifact {
  groupId: string;
  artifactId: string;
  version: string;
  /** The nested jar it came from, when it did. */
  inner?: string;
}

export type JavaArchive = { artifacts: MavenArtifact[] } | { invalid: string };

/** `key=value` lines (`#` comments); undefined without the three coordinates. */
export function parsePomProperties(text: string): Omit<MavenArtifact, 'inner'> | undefined {
  const values = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    if (line.trimStart().startsWith('#')) continue;
    const match = /^\s*([A-Za-z]+)\s*[=:]\s*(.*?)\s*$/.exec(line);
    if (match) values.set(match[1] ?? '', match[2] ?? '');
  }
  const groupId = values.get('groupId');
  const artifactId = values.get('artifactId');
  const version = values.get('version');
  return groupId && artifactId && version ? { groupId, artifactId, version } : undefined;
}

const decoder = new TextDecoder();

export function readJavaArchive(bytes: Uint8Array, depth = 0): JavaArchive {
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(bytes, {
      filter: (file) =>
        (POM_PROPERTIES.test(file.name) && file.originalSize <= 64 * 1024) ||
        (depth === 0 && NESTED_JAR.test(file.name) && file.originalSize <= NESTED_CAP),
    });
  } catch (error) {
    return { invalid: `not a readable zip (${errorMessage(error)})` };
  }
  const artifacts: MavenArtifact[] = [];
  for (const [name, content] of Object.entries(files)) {
    if (POM_PROPERTIES.test(name)) {
      const artifact = parsePomProperties(decoder.decode(content));
      if (artifact) artifacts.push(artifact);
    } else {
      const nested = readJavaArchive(content, depth + 1);
      if ('artifacts' in nested) for (const artifact of nested.artifacts) artifacts.push({ ...artifact, inner: name });
    }
  }
  return { artifacts };
}

export function mavenPackage(artifact: MavenArtifact, location: string): SbomPackage {
  return {
    type: 'maven',
    namespace: artifact.groupId,
    name: artifact.artifactId,
    version: artifact.version,
    purl: formatPurl({
      type: 'maven',
      namespace: artifact.groupId,
      name: artifact.artifactId,
      version: artifact.version,
    }),
    licenses: [],
    location: artifact.inner ? `${location}!/${artifact.inner}` : location,
  };
}

export const javaCataloguer: Cataloguer<JavaArchive> = {
  name: 'java',
  selects: (path) => ARCHIVE.test(path),
  read: async (body, size, path) => readJavaArchive(await readCapped(body, size, ARCHIVE_CAP, path)),
  catalogue(files) {
    const packages: SbomPackage[] = [];
    let invalid = 0;
    for (const file of files) {
      if ('invalid' in file.value) invalid++;
      else for (const artifact of file.value.artifacts) packages.push(mavenPackage(artifact, file.path));
    }
    return { packages, warnings: skippedWarning('Java archives', invalid, 'unreadable archives') };
  },
};
