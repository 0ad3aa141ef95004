import { type ComponentChild, h } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { MarkdownNode } from '../markdown/release-markdown';

type Renderer = typeof import('../markdown/release-markdown');
/** The renderer (marked and the sanitising tree) is a chunk of its own: the first load does not carry it. */
let loading: Promise<Renderer> | undefined;
let loaded: Renderer | undefined;
function loadRenderer(): Promise<Renderer> {
  loading ??= import('../markdown/release-markdown').then((renderer) => {
    loaded = renderer;
    return renderer;
  });
  return loading;
}

function render(node: MarkdownNode, key: number): ComponentChild {
  if (typeof node === 'string') return node;
  // Only the tree's own allow-listed tags and attributes reach h(): see markdown/release-markdown.ts.
  return h(node.tag, { key, ...node.attrs }, ...node.children.map(render));
}

/**
 * A release's Markdown body, rendered through the sanitising tree (never as HTML). Until the
 * renderer's chunk arrives (or if it cannot be fetched) the body shows as plain text.
 */
export function ReleaseBody({ body, base }: { body: string; base?: string | null }) {
  const [renderer, setRenderer] = useState(loaded);
  useEffect(() => {
    if (renderer) return;
    let current = true;
    loadRenderer().then(
      (module) => current && setRenderer(() => module),
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [renderer]);
  const tree = useMemo(() => renderer?.releaseMarkdown(body, base), [renderer, body, base]);
  if (!tree) return <div class="release-body break plain-text">{body}</div>;
  return (
    <div class="release-body markdown break" data-rendered="markdown">
      {tree.map(render)}
    </div>
  );
}
