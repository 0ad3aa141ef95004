/** Every cataloguer, in the order a file is offered to them (the first that selects it reads it). */
import { apkCataloguer } from './apk-cataloguer';
import { type Cataloguer, readCappedText } from './cataloguer';
import { dpkgCataloguer } from './dpkg-cataloguer';
import { goCataloguer } from './go-cataloguer';
import { javaCataloguer } from './java-cataloguer';
import { npmCataloguer } from './npm-cataloguer';
import { pythonCataloguer } from './python-cataloguer';
import { rpmCataloguer } from './rpm-cataloguer';

/** Kept like a database so that layers can replace it; read by the generator for the distro, catalogues nothing. */
export const osReleaseCataloguer: Cataloguer<string> = {
  name: 'os-release',
  selects: (path) => path === '/etc/os-release' || path === '/usr/lib/os-release',
  read: (body, size, path) => readCappedText(body, size, 64 * 1024, path),
  catalogue: () => ({ packages: [], warnings: [] }),
};

export const CATALOGUERS: readonly Cataloguer[] = [
  osReleaseCataloguer,
  dpkgCataloguer,
  apkCataloguer,
  rpmCataloguer,
  npmCataloguer,
  pythonCataloguer,
  javaCataloguer,
  // Last: it takes any executable, and a file's body is read by one cataloguer only.
  goCataloguer,
] as Cataloguer[];
