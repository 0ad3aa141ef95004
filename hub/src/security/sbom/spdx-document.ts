/**
 * An ImageSbom as an SPDX 2.3 JSON document (https://spdx.github.io/spdx-spec/v2.3/): the image is
 * the package the document DESCRIBES, and CONTAINS every catalogued package, each with its purl as
 * a PACKAGE-MANAGER external reference. Declared licences are SPDX expressions when they are made of
 * known ids; any other licence text becomes a `LicenseRef-` with the text as extracted licensing info.
 */
import type { ImageSbom, SbomPackage } from '../sbom-model';
import type { DocumentOptions } from './cyclonedx-document';
import { knownLicenseExpression } from './license-ids';

export const SPDX_MEDIA_TYPE = 'application/spdx+json';

/** SPDX's `created` has no fraction of a second. */
const spdxTime = (iso: string) => `${iso.slice(0, 19)}Z`;

export function toSpdx(sbom: ImageSbom, options: DocumentOptions): Record<string, unknown> {
  const extracted = new Map<string, string>(); // text → LicenseRef id
  const licenseRef = (text: string) => {
    let id = extracted.get(text);
    if (!id) {
      id = `LicenseRef-${extracted.size + 1}-${text.replace(/[^A-Za-z0-9.-]+/g, '-').slice(0, 40)}`;
      extracted.set(text, id);
    }
    return id;
  };
  const declared = (pkg: SbomPackage) => {
    if (pkg.licenses.length === 0) return 'NOASSERTION';
    const parts = pkg.licenses.map((text) => {
      const expression = knownLicenseExpression(text);
      if (!expression) return licenseRef(text);
      return pkg.licenses.length > 1 && /\s/.test(expression) ? `(${expression})` : expression;
    });
    return parts.join(' AND ');
  };
  const imageId = 'SPDXRef-Image';
  const packages: Record<string, unknown>[] = [
    {
      SPDXID: imageId,
      name: sbom.imageRef,
      versionInfo: sbom.imageId,
      downloadLocation: 'NOASSERTION',
      filesAnalyzed: false,
      primaryPackagePurpose: 'CONTAINER',
      licenseConcluded: 'NOASSERTION',
      licenseDeclared: 'NOASSERTION',
      copyrightText: 'NOASSERTION',
      ...(sbom.distro ? { comment: `Operating system: ${sbom.distro.prettyName ?? sbom.distro.id}` } : {}),
    },
  ];
  const relationships: Record<string, string>[] = [
    { spdxElementId: 'SPDXRef-DOCUMENT', relationshipType: 'DESCRIBES', relatedSpdxElement: imageId },
  ];
  sbom.packages.forEach((pkg, index) => {
    const id = `SPDXRef-Package-${pkg.type}-${index + 1}`;
    packages.push({
      SPDXID: id,
      name: pkg.name,
      versionInfo: pkg.version,
      downloadLocation: 'NOASSERTION',
      filesAnalyzed: false,
      licenseConcluded: 'NOASSERTION',
      licenseDeclared: declared(pkg),
      copyrightText: 'NOASSERTION',
      primaryPackagePurpose:
        pkg.type === 'deb' || pkg.type === 'apk' || pkg.type === 'rpm' ? 'OPERATING-SYSTEM' : 'LIBRARY',
      sourceInfo: `found in ${pkg.location}${pkg.source ? `; source package ${pkg.source.name}${pkg.source.version ? ` ${pkg.source.version}` : ''}` : ''}`,
      externalRefs: [{ referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: pkg.purl }],
    });
    relationships.push({ spdxElementId: imageId, relationshipType: 'CONTAINS', relatedSpdxElement: id });
  });
  const uuid = options.uuid ?? crypto.randomUUID();
  return {
    spdxVersion: 'SPDX-2.3',
    dataLicense: 'CC0-1.0',
    SPDXID: 'SPDXRef-DOCUMENT',
    name: sbom.imageRef,
    documentNamespace: `https://dockwatch.invalid/spdx/${encodeURIComponent(sbom.imageId)}/${uuid}`,
    creationInfo: {
      created: spdxTime(sbom.generatedAt),
      creators: [`Tool: dockwatch-${options.toolVersion}`],
      ...(sbom.warnings?.length ? { comment: sbom.warnings.join('\n') } : {}),
    },
    packages,
    relationships,
    ...(extracted.size > 0
      ? {
          hasExtractedLicensingInfos: [...extracted].map(([text, licenseId]) => ({
            licenseId,
            extractedText: text,
            name: text,
          })),
        }
      : {}),
  };
}
