/**
 * An ImageSbom as a CycloneDX 1.6 JSON document (https://cyclonedx.org/docs/1.6/json/): the image
 * as `metadata.component` (type container), its distribution as an operating-system component,
 * each package a library component with its purl, licences and where it was found (a property).
 */
import type { ImageSbom, SbomPackage } from '../sbom-model';
import { knownLicenseExpression, knownLicenseId } from './license-ids';

export const CYCLONEDX_MEDIA_TYPE = 'application/vnd.cyclonedx+json; version=1.6';

export interface DocumentOptions {
  toolVersion: string;
  /** A UUID, for the serial number / namespace: random by default, fixed in tests. */
  uuid?: string;
}

type LicenseChoice = Array<{ license: { id: string } | { name: string } } | { expression: string }>;

function licenses(pkg: SbomPackage): LicenseChoice | undefined {
  if (pkg.licenses.length === 0) return undefined;
  const only = pkg.licenses.length === 1 ? (pkg.licenses[0] as string) : undefined;
  // A compound expression must stand alone in the array (the schema's oneOf).
  if (only && /\s(AND|OR|WITH)\s/i.test(only)) {
    const expression = knownLicenseExpression(only);
    if (expression) return [{ expression }];
  }
  return pkg.licenses.map((text) => {
    const id = knownLicenseId(text);
    return { license: id ? { id } : { name: text } };
  });
}

function group(pkg: SbomPackage): string | undefined {
  // Distro namespaces are in the purl; CycloneDX's group is the vendor/scope of the package itself.
  return pkg.type === 'npm' || pkg.type === 'maven' || pkg.type === 'golang' ? pkg.namespace : undefined;
}

export function toCycloneDx(sbom: ImageSbom, options: DocumentOptions): Record<string, unknown> {
  const refs = new Set<string>();
  const uniqueRef = (wanted: string) => {
    let ref = wanted;
    for (let index = 2; refs.has(ref); index++) ref = `${wanted}#${index}`;
    refs.add(ref);
    return ref;
  };
  const imageRef = uniqueRef(`image:${sbom.imageId}`);
  const components: Record<string, unknown>[] = [];
  if (sbom.distro) {
    components.push({
      type: 'operating-system',
      'bom-ref': uniqueRef(`os:${sbom.distro.id}`),
      name: sbom.distro.id,
      ...(sbom.distro.versionId ? { version: sbom.distro.versionId } : {}),
      ...(sbom.distro.prettyName ? { description: sbom.distro.prettyName } : {}),
    });
  }
  for (const pkg of sbom.packages) {
    const licenseChoice = licenses(pkg);
    const groupName = group(pkg);
    const properties = [{ name: 'dockwatch:package:location', value: pkg.location }];
    if (pkg.source) {
      properties.push({ name: 'dockwatch:package:source-name', value: pkg.source.name });
      if (pkg.source.version) properties.push({ name: 'dockwatch:package:source-version', value: pkg.source.version });
    }
    components.push({
      type: 'library',
      'bom-ref': uniqueRef(pkg.purl),
      ...(groupName ? { group: groupName } : {}),
      name: pkg.name,
      version: pkg.version,
      purl: pkg.purl,
      ...(licenseChoice ? { licenses: licenseChoice } : {}),
      properties,
    });
  }
  return {
    $schema: 'http://cyclonedx.org/schema/bom-1.6.schema.json',
    bomFormat: 'CycloneDX',
    specVersion: '1.6',
    serialNumber: `urn:uuid:${options.uuid ?? crypto.randomUUID()}`,
    version: 1,
    metadata: {
      timestamp: sbom.generatedAt,
      tools: { components: [{ type: 'application', name: 'dockwatch', version: options.toolVersion }] },
      component: {
        type: 'container',
        'bom-ref': imageRef,
        name: sbom.imageRef,
        version: sbom.imageId,
      },
      ...(sbom.warnings?.length
        ? { properties: sbom.warnings.map((value) => ({ name: 'dockwatch:sbom:warning', value })) }
        : {}),
    },
    components,
  };
}
