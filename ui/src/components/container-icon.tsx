import { useState } from 'preact/hooks';
import type { Container } from '../api';
import { iconPath } from '../icon-path';

/**
 * The container's icon through the hub's proxy; without one (or when the set has none by that
 * name) the first letter of its name in a circle. Decorative: the name is always beside it.
 */
export function ContainerIcon({ c }: { c: Pick<Container, 'displayIcon' | 'displayName' | 'name'> }) {
  const path = iconPath(c.displayIcon);
  const [failed, setFailed] = useState<string | undefined>();
  if (path && failed !== path) {
    return <img class="container-icon" src={path} alt="" width={28} height={28} onError={() => setFailed(path)} />;
  }
  const letter = (c.displayName || c.name).replace(/^[^\p{L}\p{N}]+/u, '').charAt(0) || '?';
  return (
    <span class="container-icon fallback" aria-hidden="true">
      {letter.toUpperCase()}
    </span>
  );
}
