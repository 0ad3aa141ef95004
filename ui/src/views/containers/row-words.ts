// The words of a list row (issue 28 item 2): pure, so they are tested without a browser.
import type { Container } from '../../api';

/** The image as written, registry host first (`127.0.0.1:5000/team/app:1.0.0`): the copy and the hover. */
export function fullReference(c: Container): string {
  const registry = c.image.registry.url ? `${c.image.registry.url}/` : '';
  return `${registry}${c.image.name}:${c.image.tag.value}`;
}

/** The repository without the registry host (`team/app`; Docker Hub's `library/` dropped too, as `docker pull` has it). */
export function shortImage(c: Container): string {
  const hub = !c.image.registry.url || c.image.registry.url === 'docker.io';
  return hub ? c.image.name.replace(/^library\//, '') : c.image.name;
}
