/**
 * `/etc/os-release` (or `/usr/lib/os-release`, which Debian's `/etc/os-release` links to): the
 * image's distribution, which names the namespace and `distro` qualifier of its OS packages.
 */
import type { ImageDistro } from '../sbom-model';

/** `KEY=value` lines, values optionally quoted with shell escapes; anything else is ignored. */
export function parseOsRelease(text: string): ImageDistro | undefined {
  const fields = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (!match) continue;
    let value = (match[2] ?? '').trim();
    const quote = value[0];
    if ((quote === '"' || quote === "'") && value.endsWith(quote) && value.length >= 2) {
      value = value.slice(1, -1);
      if (quote === '"') value = value.replace(/\\(["\\$`])/g, '$1');
    }
    fields.set(match[1] ?? '', value);
  }
  const id = fields.get('ID')?.toLowerCase();
  if (!id) return undefined;
  const distro: ImageDistro = { id };
  const versionId = fields.get('VERSION_ID');
  const codename = fields.get('VERSION_CODENAME');
  const prettyName = fields.get('PRETTY_NAME');
  if (versionId) distro.versionId = versionId;
  if (codename) distro.codename = codename;
  if (prettyName) distro.prettyName = prettyName;
  return distro;
}
