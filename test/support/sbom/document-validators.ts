/**
 * Validation of the SBOM documents in tests. CycloneDX: the published 1.6 JSON schema shipped in
 * @cyclonedx/cyclonedx-library (with the SPDX licence-id and JSF schemas it references), through Ajv.
 * SPDX: the published SPDX 2.3 JSON schema is not available offline (no npm or Debian package ships
 * it), so `spdxProblems` checks what the SPDX 2.3 specification requires of a document, written here
 * from the spec's clauses: the document creation fields (§6), the package fields (§7) used, and
 * the consistency of identifiers, relationships (§11) and licence references (§10).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';

const require = createRequire(import.meta.url);
const SCHEMA_DIR = join(dirname(require.resolve('@cyclonedx/cyclonedx-library/package.json')), 'res/schema');

const readSchema = (file: string) =>
  JSON.parse(readFileSync(join(SCHEMA_DIR, file), 'utf8')) as Record<string, unknown>;

/** The SPDX licence ids of the CycloneDX package's spdx schema (the SPDX list of its release). */
export function spdxLicenseIds(): Set<string> {
  return new Set(readSchema('spdx.SNAPSHOT.schema.json')['enum'] as string[]);
}

let cycloneDxValidator: ReturnType<Ajv['compile']> | undefined;

/** Ajv's errors for the document, none when it is a valid CycloneDX 1.6 BOM. */
export function cycloneDxErrors(document: unknown): string[] {
  if (!cycloneDxValidator) {
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    // ajv-formats has no IRI or IDN formats; the BOM's URLs and addresses are ASCII, which these check.
    ajv.addFormat('iri-reference', ajv.formats['uri-reference'] ?? true);
    ajv.addFormat('idn-email', ajv.formats['email'] ?? true);
    // The BOM schema refers to its siblings by their file names, relative to its own $id.
    for (const file of ['spdx.SNAPSHOT.schema.json', 'jsf-0.82.SNAPSHOT.schema.json']) {
      ajv.addSchema({ ...readSchema(file), $id: `http://cyclonedx.org/schema/${file}` });
    }
    cycloneDxValidator = ajv.compile(readSchema('bom-1.6.SNAPSHOT.schema.json'));
  }
  if (cycloneDxValidator(document)) return [];
  return (cycloneDxValidator.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
}

const SPDX_ID = /^SPDXRef-[A-Za-z0-9.-]+$/;
const LICENSE_REF = /^LicenseRef-[A-Za-z0-9.-]+$/;
const CREATED = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/** What the document lacks of the SPDX 2.3 requirements; empty when nothing. */
export function spdxProblems(document: Record<string, unknown>, licenseIds = spdxLicenseIds()): string[] {
  const problems: string[] = [];
  const need = (ok: boolean, what: string) => {
    if (!ok) problems.push(what);
  };
  // §6: document creation information.
  need(document['spdxVersion'] === 'SPDX-2.3', '6.1 spdxVersion must be SPDX-2.3');
  need(document['dataLicense'] === 'CC0-1.0', '6.2 dataLicense must be CC0-1.0');
  need(document['SPDXID'] === 'SPDXRef-DOCUMENT', '6.3 SPDXID must be SPDXRef-DOCUMENT');
  need(typeof document['name'] === 'string' && document['name'] !== '', '6.4 name is required');
  const namespace = document['documentNamespace'];
  need(
    typeof namespace === 'string' && /^[a-z][a-z0-9+.-]*:\/\/[^#\s]+$/i.test(namespace),
    '6.5 documentNamespace must be an absolute URI without #',
  );
  const creation = document['creationInfo'] as { created?: unknown; creators?: unknown } | undefined;
  need(
    typeof creation?.created === 'string' && CREATED.test(creation.created),
    '6.9 created must be YYYY-MM-DDThh:mm:ssZ',
  );
  need(
    Array.isArray(creation?.creators) &&
      creation.creators.length > 0 &&
      creation.creators.every(
        (creator) => typeof creator === 'string' && /^(Person|Organization|Tool): \S/.test(creator),
      ),
    '6.8 creators must name a Person, Organization or Tool',
  );
  // §7: packages.
  const ids = new Set<string>(['SPDXRef-DOCUMENT']);
  const extracted = new Set(
    ((document['hasExtractedLicensingInfos'] as Array<Record<string, unknown>> | undefined) ?? []).map((info) => {
      need(
        typeof info['licenseId'] === 'string' && LICENSE_REF.test(info['licenseId']),
        '10.1 licenseId must be LicenseRef-',
      );
      need(typeof info['extractedText'] === 'string' && info['extractedText'] !== '', '10.2 extractedText is required');
      return info['licenseId'] as string;
    }),
  );
  const checkLicense = (value: unknown, where: string) => {
    if (value === undefined || value === 'NOASSERTION' || value === 'NONE') return;
    if (typeof value !== 'string') return need(false, `${where} must be a string`);
    for (const token of value.replace(/[()]/g, ' ').split(/\s+/).filter(Boolean)) {
      if (token === 'AND' || token === 'OR' || token === 'WITH') continue;
      const id = token.replace(/\+$/, '');
      need(
        licenseIds.has(id) || extracted.has(id) || /exception/i.test(id),
        `${where}: ${token} is no SPDX id nor a declared LicenseRef`,
      );
    }
  };
  const packages = document['packages'];
  need(Array.isArray(packages) && packages.length > 0, '7 packages are required');
  for (const [index, pkg] of ((packages as Array<Record<string, unknown>>) ?? []).entries()) {
    const where = `packages[${index}]`;
    need(typeof pkg['name'] === 'string' && pkg['name'] !== '', `${where} 7.1 name is required`);
    const id = pkg['SPDXID'];
    need(typeof id === 'string' && SPDX_ID.test(id), `${where} 7.2 SPDXID must match SPDXRef-[A-Za-z0-9.-]+`);
    need(typeof id === 'string' && !ids.has(id), `${where} 7.2 SPDXID must be unique`);
    if (typeof id === 'string') ids.add(id);
    need(
      typeof pkg['downloadLocation'] === 'string' && pkg['downloadLocation'] !== '',
      `${where} 7.7 downloadLocation is required`,
    );
    need(
      pkg['filesAnalyzed'] === false || pkg['packageVerificationCode'] !== undefined,
      `${where} 7.9 verification code when files are analysed`,
    );
    checkLicense(pkg['licenseConcluded'], `${where} 7.13`);
    checkLicense(pkg['licenseDeclared'], `${where} 7.15`);
    for (const ref of (pkg['externalRefs'] as Array<Record<string, unknown>> | undefined) ?? []) {
      need(
        ['SECURITY', 'PACKAGE-MANAGER', 'PERSISTENT-ID', 'OTHER'].includes(String(ref['referenceCategory'])),
        `${where} 7.21 referenceCategory`,
      );
      need(
        typeof ref['referenceType'] === 'string' && typeof ref['referenceLocator'] === 'string',
        `${where} 7.21 type and locator`,
      );
      if (ref['referenceType'] === 'purl')
        need(/^pkg:[a-z]+\/\S+$/.test(String(ref['referenceLocator'])), `${where} 7.21 purl locator`);
    }
    const purpose = pkg['primaryPackagePurpose'];
    need(
      purpose === undefined ||
        [
          'APPLICATION',
          'FRAMEWORK',
          'LIBRARY',
          'CONTAINER',
          'OPERATING-SYSTEM',
          'DEVICE',
          'FIRMWARE',
          'SOURCE',
          'ARCHIVE',
          'FILE',
          'INSTALL',
          'OTHER',
        ].includes(String(purpose)),
      `${where} 7.24 primaryPackagePurpose`,
    );
  }
  // §11: relationships between known elements; the document DESCRIBES something.
  const relationships = (document['relationships'] as Array<Record<string, unknown>> | undefined) ?? [];
  need(
    relationships.some((rel) => rel['spdxElementId'] === 'SPDXRef-DOCUMENT' && rel['relationshipType'] === 'DESCRIBES'),
    '6/11 the document must DESCRIBE at least one element',
  );
  for (const rel of relationships) {
    need(
      ids.has(String(rel['spdxElementId'])) && ids.has(String(rel['relatedSpdxElement'])),
      `11.1 relationship between unknown elements ${JSON.stringify(rel)}`,
    );
    need(
      typeof rel['relationshipType'] === 'string' && /^[A-Z_]+$/.test(String(rel['relationshipType'])),
      '11.1 relationshipType',
    );
  }
  return problems;
}
